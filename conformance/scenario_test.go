package conformance

import (
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// scenario is one server's conformance run: open a file with an error, see
// it, fix it, see it cleared, then a definition and a hover.
type scenario struct {
	name     string            // the transcript's name
	server   string            // the built-in server id
	binary   string            // its executable in the install script's bin directory
	config   string            // extra lsp.servers entries (enabling it, disabling rivals)
	files    map[string]string // the project on disk (file holds fixed: see project)
	file     string
	lang     string // its language id
	broken   string
	fixed    string
	errAt    [2]int             // 1-based line and column of the error in broken
	def, hov api.PositionParams // in fixed; zero Line skips the step
	// disk checks the texts written to the file, not given: for a server
	// that analyses saved files only (settle savedOnly).
	disk bool
	// ci marks a server live-tested in CI's suite alone (servers.json
	// testedIn "ci"): its live row runs in CI's live pass (LSPKIT_CI_LIVE=1); its
	// transcript replays everywhere.
	ci bool
}

var tsFiles = map[string]string{
	"tsconfig.json": `{"compilerOptions":{"strict":true}}`,
	"lib.ts":        "export function greeting(name: string): string {\n  return \"hello, \" + name;\n}\n",
}

// pyFiles, pyBroken and pyFixed are pyright's project, which basedpyright
// is checked on too.
var pyFiles = map[string]string{"lib.py": "def greeting(name: str) -> str:\n    return \"hello, \" + name\n"}

const (
	pyBroken = "from lib import greeting\n\nn: int = greeting(\"x\")\n"
	pyFixed  = "from lib import greeting\n\nn: str = greeting(\"x\")\n"
)

func withFile(files map[string]string, name, text string) map[string]string {
	out := map[string]string{name: text}
	for k, v := range files {
		out[k] = v
	}
	return out
}

const (
	tsBroken = "import { greeting } from \"./lib\";\nexport const n: number = greeting(\"x\");\n"
	tsFixed  = "import { greeting } from \"./lib\";\nexport const n: string = greeting(\"x\");\n"
)

var scenarios = []scenario{
	{
		name: "gopls", server: "gopls", binary: "gopls",
		files: map[string]string{
			"go.mod": "module example.com/demo\n\ngo 1.22\n",
			"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
			"a.go":   "package demo\n\nfunc Use() int { return Greeting(\"x\") }\n",
		},
		file: "a.go", lang: "go",
		broken: "package demo\n\nfunc Use() int { return Greeting(\"x\") }\n",
		fixed:  "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
		errAt:  [2]int{3, 25},
		def:    api.PositionParams{Line: 3, Symbol: "Greeting"}, hov: api.PositionParams{Line: 3, Symbol: "Greeting"},
	},
	{
		name: "typescript", server: "typescript", binary: "typescript-language-server",
		files: withFile(tsFiles, "a.ts", tsBroken), file: "a.ts", lang: "typescript", broken: tsBroken, fixed: tsFixed,
		errAt: [2]int{2, 14},
		def:   api.PositionParams{Line: 2, Symbol: "greeting"}, hov: api.PositionParams{Line: 2, Symbol: "greeting"},
	},
	{
		name: "typescript7", server: "typescript7", binary: "tsc7", ci: true,
		config: `"typescript": {"enabled": false}`,
		files:  withFile(tsFiles, "a.ts", tsBroken), file: "a.ts", lang: "typescript", broken: tsBroken, fixed: tsFixed,
		errAt: [2]int{2, 14},
		def:   api.PositionParams{Line: 2, Symbol: "greeting"}, hov: api.PositionParams{Line: 2, Symbol: "greeting"},
	},
	{
		name: "pyright", server: "pyright", binary: "pyright-langserver",
		files: withFile(pyFiles, "a.py", pyBroken), file: "a.py", lang: "python", broken: pyBroken, fixed: pyFixed,
		errAt: [2]int{3, 10},
		def:   api.PositionParams{Line: 3, Symbol: "greeting"}, hov: api.PositionParams{Line: 3, Symbol: "greeting"},
	},
	{
		name: "clangd", server: "clangd", binary: "clangd",
		files: map[string]string{
			"compile_flags.txt": "-xc\n-std=c11\n",
			"lib.h":             "int greeting(int x);\n",
			"a.c":               "#include \"lib.h\"\n\nint use(void) { return greetin(1); }\n",
		},
		file: "a.c", lang: "c", broken: "#include \"lib.h\"\n\nint use(void) { return greetin(1); }\n", fixed: "#include \"lib.h\"\n\nint use(void) { return greeting(1); }\n",
		errAt: [2]int{3, 24},
		def:   api.PositionParams{Line: 3, Symbol: "greeting"}, hov: api.PositionParams{Line: 3, Symbol: "greeting"},
	},
	{
		name: "bash", server: "bash", binary: "bash-language-server", ci: true,
		files: map[string]string{"a.sh": "#!/bin/bash\ngreet() { echo \"hi $1\"; }\nif [ -f x ]\n  greet you\nfi\n"},
		file:  "a.sh", lang: "shellscript", broken: "#!/bin/bash\ngreet() { echo \"hi $1\"; }\nif [ -f x ]\n  greet you\nfi\n", fixed: "#!/bin/bash\ngreet() { echo \"hi $1\"; }\nif [ -f x ]; then\n  greet you\nfi\n",
		def: api.PositionParams{Line: 4, Symbol: "greet"}, hov: api.PositionParams{Line: 4, Symbol: "greet"},
	},
	{
		name: "yaml", server: "yaml", binary: "yaml-language-server", ci: true,
		files: map[string]string{"a.yaml": "base: &base 1\nother: *base\nlist: [1\n"},
		file:  "a.yaml", lang: "yaml", broken: "base: &base 1\nother: *base\nlist: [1\n", fixed: "base: &base 1\nother: *base\nlist: [1]\n",
		def: api.PositionParams{Line: 2, Symbol: "base"}, hov: api.PositionParams{Line: 1, Symbol: "base"},
	},
	{
		name: "json", server: "json", binary: "vscode-json-language-server", ci: true,
		files: map[string]string{"a.json": "{\n  \"name\": \"demo\",\n}\n"},
		file:  "a.json", lang: "json", broken: "{\n  \"name\": \"demo\",\n}\n", fixed: "{\n  \"name\": \"demo\"\n}\n",
		hov: api.PositionParams{Line: 2, Symbol: "name"}, // the json server has no definition
	},
	{
		name: "css", server: "css", binary: "vscode-css-language-server", ci: true,
		files: map[string]string{"a.css": ":root { --main: red; }\na { color: var(--main) \n"},
		file:  "a.css", lang: "css", broken: ":root { --main: red; }\na { color: var(--main) \n", fixed: ":root { --main: red; }\na { color: var(--main); }\n",
		def: api.PositionParams{Line: 2, Symbol: "--main"}, hov: api.PositionParams{Line: 2, Symbol: "color"},
	},
	{
		name: "html", server: "html", binary: "vscode-html-language-server", ci: true,
		files: map[string]string{"a.html": "<!DOCTYPE html>\n<html><head><style>a { color: red; </style></head><body><div>hi</div></body></html>\n"},
		file:  "a.html", lang: "html",
		broken: "<!DOCTYPE html>\n<html><head><style>a { color: red; </style></head><body><div>hi</div></body></html>\n",
		fixed:  "<!DOCTYPE html>\n<html><head><style>a { color: red; }</style></head><body><div>hi</div></body></html>\n",
		def:    api.PositionParams{Line: 2, Symbol: "div"}, hov: api.PositionParams{Line: 2, Symbol: "div"},
	},
	{
		name: "eslint", server: "eslint", binary: "vscode-eslint-language-server", ci: true,
		config: `"typescript": {"enabled": false}`,
		files: map[string]string{
			"eslint.config.mjs": "export default [{ rules: { \"no-debugger\": \"error\" } }];\n",
			"a.js":              "const x = 1;\ndebugger;\nexport { x };\n",
		},
		file: "a.js", lang: "javascript", broken: "const x = 1;\ndebugger;\nexport { x };\n", fixed: "const x = 1;\nexport { x };\n",
		errAt: [2]int{2, 1},
	},
	{
		name: "basedpyright", server: "basedpyright", binary: "basedpyright-langserver", ci: true,
		config: `"pyright": {"enabled": false}`,
		files:  withFile(pyFiles, "a.py", pyBroken), file: "a.py", lang: "python", broken: pyBroken, fixed: pyFixed,
		errAt: [2]int{3, 10},
		def:   api.PositionParams{Line: 3, Symbol: "greeting"}, hov: api.PositionParams{Line: 3, Symbol: "greeting"},
	},
	{
		name: "pylsp", server: "pylsp", binary: "pylsp", ci: true,
		config: `"pyright": {"enabled": false}`,
		files: map[string]string{
			"lib.py": "def greeting(name):\n    return \"hello, \" + name\n",
			"a.py":   "from lib import greeting\n\nprint(greetin(\"x\"))\n",
		},
		file: "a.py", lang: "python", broken: "from lib import greeting\n\nprint(greetin(\"x\"))\n", fixed: "from lib import greeting\n\nprint(greeting(\"x\"))\n",
		errAt: [2]int{3, 7},
		def:   api.PositionParams{Line: 3, Symbol: "greeting"}, hov: api.PositionParams{Line: 3, Symbol: "greeting"},
	},
	{
		name: "fortls", server: "fortls", binary: "fortls", ci: true, disk: true,
		files: map[string]string{"main.f90": fortranFixed},
		file:  "main.f90", lang: "fortran", broken: strings.Replace(fortranFixed, "  integer :: n\n", "  integer :: n\n  integer :: n\n", 1), fixed: fortranFixed,
		errAt: [2]int{4, 14},
		def:   api.PositionParams{Line: 5, Symbol: "greet"}, hov: api.PositionParams{Line: 5, Symbol: "greet"},
	},
	{
		name: "biome", server: "biome", binary: "biome", ci: true,
		config: `"typescript": {"enabled": false}`,
		files: map[string]string{
			"biome.json": `{"linter": {"enabled": true, "rules": {"recommended": true}}}`,
			"a.js":       "export function greeting(name) {\n  debugger;\n  return `hello, ${name}`;\n}\n",
		},
		file: "a.js", lang: "javascript", broken: "export function greeting(name) {\n  debugger;\n  return `hello, ${name}`;\n}\n", fixed: "export function greeting(name) {\n  return `hello, ${name}`;\n}\n",
		errAt: [2]int{2, 3},
	},
	{
		name: "astro", server: "astro", binary: "astro-ls", ci: true,
		files: map[string]string{
			"package.json":  `{"name": "demo", "private": true}`,
			"tsconfig.json": `{"compilerOptions": {"strict": true}}`,
			"index.astro":   astroBroken,
		},
		file: "index.astro", lang: "astro", broken: astroBroken, fixed: strings.Replace(astroBroken, `count: number = "x"`, "count: number = 1", 1),
		def: api.PositionParams{Line: 7, Symbol: "greeting"}, hov: api.PositionParams{Line: 7, Symbol: "greeting"},
	},
	{
		name: "ansible", server: "ansible", binary: "ansible-language-server", ci: true,
		config: `"yaml": {"enabled": false}`,
		files:  map[string]string{"ansible.cfg": "[defaults]\n", "playbook.yml": ansibleFixed},
		file:   "playbook.yml", lang: "ansible", broken: strings.Replace(ansibleFixed, "msg: hello", "msg: [hello", 1), fixed: ansibleFixed,
	},
	{
		name: "dockerfile", server: "dockerfile", binary: "docker-langserver", ci: true,
		files: map[string]string{"Dockerfile": "FROM alpine:3.20\nARG NAME=world\nCOPY\nRUN echo $NAME\n"},
		file:  "Dockerfile", lang: "dockerfile",
		broken: "FROM alpine:3.20\nARG NAME=world\nCOPY\nRUN echo $NAME\n", fixed: "FROM alpine:3.20\nARG NAME=world\nCOPY a.txt /a.txt\nRUN echo $NAME\n",
		errAt: [2]int{3, 1},
		def:   api.PositionParams{Line: 4, Character: 11}, hov: api.PositionParams{Line: 1, Symbol: "FROM"}, // 11: NAME of $NAME
	},
	{
		name: "svelte", server: "svelte", binary: "svelteserver", ci: true,
		files: map[string]string{
			"package.json":  `{"name": "demo", "private": true}`,
			"tsconfig.json": `{"compilerOptions": {"strict": true}}`,
			"App.svelte":    svelteBroken,
		},
		file: "App.svelte", lang: "svelte", broken: svelteBroken, fixed: strings.Replace(svelteBroken, `count: number = "x"`, "count: number = 1", 1),
		errAt: [2]int{2, 7},
		def:   api.PositionParams{Line: 6, Symbol: "greeting"}, hov: api.PositionParams{Line: 6, Symbol: "greeting"},
	},
	{
		name: "prisma", server: "prisma", binary: "prisma-language-server", ci: true,
		files: map[string]string{"package.json": `{"name": "demo", "private": true}`, "schema.prisma": prismaFixed},
		file:  "schema.prisma", lang: "prisma", broken: strings.Replace(prismaFixed, "role Role", "role Rol", 1), fixed: prismaFixed,
		errAt: [2]int{12, 8},
		def:   api.PositionParams{Line: 12, Symbol: "Role"}, hov: api.PositionParams{Line: 12, Symbol: "Role"},
	},
	{
		name: "graphql", server: "graphql", binary: "graphql-lsp", ci: true,
		files: map[string]string{
			".graphqlrc.yml": "schema: schema.graphql\ndocuments: \"*.graphql\"\n",
			"schema.graphql": "type Query {\n  user: User\n}\n\ntype User {\n  name: String\n}\n",
			"query.graphql":  "query Q {\n  user { nom }\n}\n",
		},
		file: "query.graphql", lang: "graphql", broken: "query Q {\n  user { nom }\n}\n", fixed: "query Q {\n  user { name }\n}\n",
		errAt: [2]int{2, 10},
		def:   api.PositionParams{Line: 2, Symbol: "user"}, hov: api.PositionParams{Line: 2, Symbol: "name"},
	},
	{
		name: "vim", server: "vim", binary: "vim-language-server", ci: true,
		files: map[string]string{"a.vim": vimFixed},
		file:  "a.vim", lang: "vim", broken: strings.Replace(vimFixed, "let x = 1", "let x = ", 1), fixed: vimFixed,
		def: api.PositionParams{Line: 5, Symbol: "Greeting"}, hov: api.PositionParams{Line: 5, Symbol: "Greeting"},
	},
	{
		name: "compose", server: "compose", binary: "docker-compose-langserver", ci: true,
		config: `"yaml": {"enabled": false}`,
		files:  map[string]string{"docker-compose.yml": composeFixed},
		file:   "docker-compose.yml", lang: "dockercompose", broken: strings.Replace(composeFixed, "    environment:\n      A: b\n", "    environment\n", 1), fixed: composeFixed,
		hov: api.PositionParams{Line: 3, Symbol: "image"},
	},
	{
		name: "templ", server: "templ", binary: "templ", ci: true,
		files: map[string]string{"go.mod": templGoMod, "go.sum": templGoSum, "hello.templ": templFixed},
		file:  "hello.templ", lang: "templ", broken: strings.Replace(templFixed, "{ name }</p>", "{ name }", 1), fixed: templFixed,
	},
	{
		name: "buf", server: "buf", binary: "buf", ci: true,
		files: map[string]string{"buf.yaml": "version: v2\n", "foo/v1/item.proto": protoFixed},
		file:  "foo/v1/item.proto", lang: "proto", broken: strings.Replace(protoFixed, "  Tag tag = 2;", "  Tagg tag = 2;", 1), fixed: protoFixed,
		errAt: [2]int{7, 3},
		def:   api.PositionParams{Line: 7, Symbol: "Tag"}, hov: api.PositionParams{Line: 7, Symbol: "Tag"},
	},
}

const (
	ansibleFixed = "---\n- name: Greet\n  hosts: all\n  tasks:\n    - name: Say hello\n      ansible.builtin.debug:\n        msg: hello\n"
	astroBroken  = "---\nconst count: number = \"x\";\nfunction greeting(n: string): string {\n  return \"hi \" + n;\n}\n---\n<h1>{greeting(\"a\")} {count}</h1>\n"
	svelteBroken = "<script lang=\"ts\">\n  let count: number = \"x\";\n  function greeting(n: string): string { return \"hi \" + n; }\n</script>\n\n<h1>{greeting(\"a\")} {count}</h1>\n"
	prismaFixed  = "datasource db {\n  provider = \"postgresql\"\n}\n\nenum Role {\n  ADMIN\n  MEMBER\n}\n\nmodel User {\n  id   Int  @id\n  role Role\n}\n"
	vimFixed     = "function! Greeting(name) abort\n  return 'hello, ' . a:name\nendfunction\n\necho Greeting('x')\nlet x = 1\n"
	composeFixed = "services:\n  web:\n    image: nginx\n    environment:\n      A: b\n"
	fortranFixed = "program main\n  implicit none\n  integer :: n\n  n = 1\n  call greet(n)\ncontains\n  subroutine greet(k)\n    integer, intent(in) :: k\n    print *, 'hello', k\n  end subroutine greet\nend program main\n"
	protoFixed   = "syntax = \"proto3\";\n\npackage foo.v1;\n\nmessage Item {\n  string name = 1;\n  Tag tag = 2;\n}\n\nmessage Tag {\n  string label = 1;\n}\n"
	templFixed   = "package main\n\ntempl Greeting(name string) {\n\t<p>hello, { name }</p>\n}\n"
	// The code templ generates imports templ's runtime, at the version
	// servers.json installs.
	templGoMod = "module example.com/demo\n\ngo 1.22\n\nrequire github.com/a-h/templ v0.3.1100\n"
	templGoSum = "github.com/a-h/templ v0.3.1100 h1:lQhjVs1IL+M6QWUvojaFBd21+kzwATppSyWkWB9oHoM=\ngithub.com/a-h/templ v0.3.1100/go.mod h1:j1WAOR7749mlo1AxFLQ7qbDFW5VwyoqszRTlKqEHN9M=\n"
)
