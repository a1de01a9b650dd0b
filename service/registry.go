package service

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ServerSpec is everything lspkit knows about one language server.
type ServerSpec struct {
	ID       string
	Language string // for status: "go", "typescript", …
	Command  string // an absolute path, or a name looked up on PATH and in the server cache
	Args     []string
	Env      map[string]string
	// Extensions (with the dot) and exact file names (Dockerfile) it serves.
	Extensions []string
	FileNames  []string
	// LanguageIDs maps an extension or file name to the LSP language id;
	// unlisted ones use Language.
	LanguageIDs map[string]string
	// RootMarkers are the files or directories whose nearest ancestor
	// directory becomes the server's root.
	RootMarkers []string
	// RequireMarker keeps the server off files with no marker above them
	// (eslint without an eslint config).
	RequireMarker bool
	// DefaultDisabled servers run only when the configuration enables them
	// (alternatives to a default one: TypeScript 7, basedpyright).
	DefaultDisabled bool
	// InitializationOptions and Settings (what workspace/configuration
	// answers); "${servers}" in them stands for the server cache directory.
	InitializationOptions jsontext.Value
	Settings              jsontext.Value
	// Install is how to install a pinned version, or nil.
	Install *Install
	// Enabled is false when the configuration disables it.
	Enabled bool
}

// Install is a pinned installation recipe into the user cache.
type Install struct {
	Kind     string   // "go" (go install) or "npm" (npm install --prefix)
	Packages []string // module@version, or npm package@version (the first provides Bin)
	Group    string   // npm: the prefix directory name under the cache's npm/
	Bin      string   // the executable the package provides (npm: under node_modules/.bin)
}

// languageID returns the LSP language id for a file.
func (s *ServerSpec) languageID(path string) string {
	if id, ok := s.LanguageIDs[filepath.Base(path)]; ok {
		return id
	}
	if id, ok := s.LanguageIDs[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return s.Language
}

// serves reports whether the server handles the file at path.
func (s *ServerSpec) serves(path string) bool {
	if slices.Contains(s.FileNames, filepath.Base(path)) {
		return true
	}
	ext := strings.ToLower(filepath.Ext(path))
	return ext != "" && slices.Contains(s.Extensions, ext)
}

var tsIDs = map[string]string{
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
}

var tsExtensions = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

const vscodeVersion = "vscode-langservers-extracted@4.10.0"

func vscodeInstall(bin string) *Install {
	return &Install{Kind: "npm", Group: "vscode", Packages: []string{vscodeVersion, "eslint@9.39.5"}, Bin: bin}
}

// eslintSettings is the settings object vscode-eslint-language-server asks
// for (section ""): it reads every one of these keys.
const eslintSettings = `{"validate":"on","packageManager":"npm","useESLintClass":false,` +
	`"experimental":{"useFlatConfig":true},"useFlatConfig":true,"codeActionOnSave":{"mode":"all"},` +
	`"format":false,"quiet":false,"onIgnoredFiles":"off","options":{},"rulesCustomizations":[],` +
	`"run":"onType","problems":{"shortenToSingleLine":false},"nodePath":"${servers}/npm/vscode/node_modules",` +
	`"workingDirectory":{"mode":"auto"},"codeAction":{"disableRuleComment":{"enable":true,"location":"separateLine"},` +
	`"showDocumentation":{"enable":true}}}`

// builtinServers returns lspkit's built-in servers, by id.
func builtinServers() map[string]*ServerSpec {
	list := []*ServerSpec{
		{ID: "gopls", Language: "go", Command: "gopls", Extensions: []string{".go"},
			RootMarkers: []string{"go.work", "go.mod"},
			Install:     &Install{Kind: "go", Packages: []string{"golang.org/x/tools/gopls@v0.23.0"}, Bin: "gopls"}},
		{ID: "typescript", Language: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Extensions: tsExtensions, LanguageIDs: tsIDs,
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Install:     &Install{Kind: "npm", Group: "typescript", Packages: []string{"typescript-language-server@5.3.0", "typescript@6.0.3"}, Bin: "typescript-language-server"}},
		{ID: "typescript7", Language: "typescript", Command: "tsc7", Args: []string{"--lsp", "--stdio"},
			Extensions: tsExtensions, LanguageIDs: tsIDs, DefaultDisabled: true,
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Install:     &Install{Kind: "npm", Group: "typescript7", Packages: []string{"typescript@7.0.2"}, Bin: "tsc"}},
		{ID: "eslint", Language: "javascript", Command: "vscode-eslint-language-server", Args: []string{"--stdio"},
			Extensions: tsExtensions, LanguageIDs: tsIDs, RequireMarker: true,
			RootMarkers: []string{"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"},
			Settings:    jsontext.Value(eslintSettings), Install: vscodeInstall("vscode-eslint-language-server")},
		{ID: "pyright", Language: "python", Command: "pyright-langserver", Args: []string{"--stdio"},
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"},
			Settings:    jsontext.Value(`{"python":{"analysis":{"diagnosticMode":"openFilesOnly","autoSearchPaths":true,"useLibraryCodeForTypes":true}}}`),
			Install:     &Install{Kind: "npm", Group: "pyright", Packages: []string{"pyright@1.1.414"}, Bin: "pyright-langserver"}},
		{ID: "basedpyright", Language: "python", Command: "basedpyright-langserver", Args: []string{"--stdio"},
			Extensions: []string{".py", ".pyi"}, DefaultDisabled: true,
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"},
			Settings:    jsontext.Value(`{"basedpyright":{"analysis":{"diagnosticMode":"openFilesOnly"}}}`),
			Install:     &Install{Kind: "npm", Group: "basedpyright", Packages: []string{"basedpyright@1.40.1"}, Bin: "basedpyright-langserver"}},
		{ID: "clangd", Language: "c", Command: "clangd", Args: []string{"--background-index=false"},
			Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".m", ".mm"},
			LanguageIDs: map[string]string{".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".m": "objective-c", ".mm": "objective-cpp"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "meson.build", "Makefile"}},
		{ID: "rust-analyzer", Language: "rust", Command: "rust-analyzer", Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml", "rust-project.json"}},
		{ID: "bash", Language: "shellscript", Command: "bash-language-server", Args: []string{"start"},
			Extensions: []string{".sh", ".bash", ".ksh"}, FileNames: []string{".bashrc", ".bash_profile"},
			Install: &Install{Kind: "npm", Group: "bash", Packages: []string{"bash-language-server@5.8.1"}, Bin: "bash-language-server"}},
		{ID: "yaml", Language: "yaml", Command: "yaml-language-server", Args: []string{"--stdio"},
			Extensions: []string{".yaml", ".yml"},
			Settings:   jsontext.Value(`{"yaml":{"validate":true,"hover":true,"completion":true,"format":{"enable":false},"schemaStore":{"enable":false},"schemas":{}},"redhat":{"telemetry":{"enabled":false}}}`),
			Install:    &Install{Kind: "npm", Group: "yaml", Packages: []string{"yaml-language-server@1.25.0"}, Bin: "yaml-language-server"}},
		{ID: "json", Language: "json", Command: "vscode-json-language-server", Args: []string{"--stdio"},
			Extensions: []string{".json", ".jsonc"}, LanguageIDs: map[string]string{".jsonc": "jsonc"},
			InitializationOptions: jsontext.Value(`{"provideFormatter":false}`),
			Settings:              jsontext.Value(`{"json":{"validate":{"enable":true},"format":{"enable":false},"schemas":[]},"http":{"proxy":"","proxyStrictSSL":true}}`),
			Install:               vscodeInstall("vscode-json-language-server")},
		{ID: "css", Language: "css", Command: "vscode-css-language-server", Args: []string{"--stdio"},
			Extensions: []string{".css", ".scss", ".less"}, LanguageIDs: map[string]string{".scss": "scss", ".less": "less"},
			Settings: jsontext.Value(`{"css":{"validate":true,"lint":{}},"scss":{"validate":true,"lint":{}},"less":{"validate":true,"lint":{}}}`),
			Install:  vscodeInstall("vscode-css-language-server")},
		{ID: "html", Language: "html", Command: "vscode-html-language-server", Args: []string{"--stdio"},
			Extensions: []string{".html", ".htm"},
			Settings:   jsontext.Value(`{"html":{"validate":{"scripts":true,"styles":true},"format":{"enable":false},"suggest":{}},"css":{"validate":true,"lint":{}},"javascript":{"validate":{"enable":true}}}`),
			Install:    vscodeInstall("vscode-html-language-server")},
		{ID: "markdown", Language: "markdown", Command: "vscode-markdown-language-server", Args: []string{"--stdio"},
			Extensions: []string{".md", ".markdown"}, DefaultDisabled: true,
			Settings: jsontext.Value(`{"markdown":{"validate":{"enabled":true}}}`),
			Install:  vscodeInstall("vscode-markdown-language-server")},
		{ID: "lua", Language: "lua", Command: "lua-language-server", Extensions: []string{".lua"}, RootMarkers: []string{".luarc.json", ".luarc.jsonc", ".stylua.toml"}},
		{ID: "luau", Language: "luau", Command: "luau-lsp", Args: []string{"lsp"}, Extensions: []string{".luau"}, RootMarkers: []string{"default.project.json", ".luaurc"}},
		{ID: "jdtls", Language: "java", Command: "jdtls", Extensions: []string{".java"}, RootMarkers: []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", ".project"}},
		{ID: "zls", Language: "zig", Command: "zls", Extensions: []string{".zig", ".zon"}, RootMarkers: []string{"build.zig"}},
		{ID: "ruby-lsp", Language: "ruby", Command: "ruby-lsp", Extensions: []string{".rb", ".rake", ".gemspec"}, FileNames: []string{"Gemfile", "Rakefile"}, RootMarkers: []string{"Gemfile"}},
		{ID: "intelephense", Language: "php", Command: "intelephense", Args: []string{"--stdio"}, Extensions: []string{".php"}, RootMarkers: []string{"composer.json"},
			Install: &Install{Kind: "npm", Group: "intelephense", Packages: []string{"intelephense@1.18.5"}, Bin: "intelephense"}},
		{ID: "dockerfile", Language: "dockerfile", Command: "docker-langserver", Args: []string{"--stdio"}, Extensions: []string{".dockerfile"}, FileNames: []string{"Dockerfile", "Containerfile"},
			Install: &Install{Kind: "npm", Group: "dockerfile", Packages: []string{"dockerfile-language-server-nodejs@0.15.0"}, Bin: "docker-langserver"}},
		{ID: "terraform-ls", Language: "terraform", Command: "terraform-ls", Args: []string{"serve"}, Extensions: []string{".tf", ".tfvars"}, LanguageIDs: map[string]string{".tfvars": "terraform-vars"}, RootMarkers: []string{".terraform", ".terraform.lock.hcl"}},
		{ID: "vue", Language: "vue", Command: "vue-language-server", Args: []string{"--stdio"}, Extensions: []string{".vue"}, RootMarkers: []string{"package.json"},
			Install: &Install{Kind: "npm", Group: "vue", Packages: []string{"@vue/language-server@3.3.11", "typescript@6.0.3"}, Bin: "vue-language-server"}},
		{ID: "svelte", Language: "svelte", Command: "svelteserver", Args: []string{"--stdio"}, Extensions: []string{".svelte"}, RootMarkers: []string{"package.json"},
			Install: &Install{Kind: "npm", Group: "svelte", Packages: []string{"svelte-language-server@0.18.4"}, Bin: "svelteserver"}},
		{ID: "deno", Language: "typescript", Command: "deno", Args: []string{"lsp"}, Extensions: tsExtensions, LanguageIDs: tsIDs, RequireMarker: true, DefaultDisabled: true,
			RootMarkers: []string{"deno.json", "deno.jsonc"}, InitializationOptions: jsontext.Value(`{"enable":true,"lint":true}`)},
	}
	out := make(map[string]*ServerSpec, len(list))
	for _, s := range list {
		s.Enabled = !s.DefaultDisabled
		out[s.ID] = s
	}
	return out
}

// servers applies the configuration to the built-ins: entries override
// fields by id, add new servers, and enable or disable them.
func servers(cfg Config) map[string]*ServerSpec {
	out := builtinServers()
	for _, id := range sortedKeys(cfg.Servers) {
		sc := cfg.Servers[id]
		s, ok := out[id]
		if !ok {
			s = &ServerSpec{ID: id, Language: sc.Language, Enabled: true}
			if s.Language == "" {
				s.Language = id
			}
			out[id] = s
		} else {
			c := *s
			s = &c
			out[id] = s
		}
		if sc.Enabled != nil {
			s.Enabled = *sc.Enabled
		} else if ok && sc.Command != "" {
			s.Enabled = true // configuring a command for a built-in means using it
		}
		if sc.Command != "" {
			s.Command, s.Args, s.Install = sc.Command, sc.Args, nil
		} else if sc.Args != nil {
			s.Args = sc.Args
		}
		if sc.Extensions != nil {
			s.Extensions = lower(sc.Extensions)
			s.FileNames = nil
		}
		if sc.RootMarkers != nil {
			s.RootMarkers = sc.RootMarkers
		}
		if sc.Env != nil {
			s.Env = maps.Clone(sc.Env)
		}
		if sc.InitializationOptions != nil {
			s.InitializationOptions = sc.InitializationOptions
		}
		if sc.Settings != nil {
			s.Settings = sc.Settings
		}
		if sc.Language != "" {
			s.Language = sc.Language
		}
	}
	return out
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}
