package main

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The imperfect projects: real code bases that carry errors of their own
// before any edit, at pinned versions from the registries, and the
// checked edits -edits proposes on them. Harmless edits move the lines of
// old errors (a comment above them, in the same file) as well as change
// code; breaking edits change what other files use.
var imperfects = []imperfect{
	{
		name: "go-internal", language: "Go", errors: goEditErrors,
		note:  "its testscript package does not compile with Go 1.26 (testing's testDeps gained methods), so neither do its tests nor the commands built on it",
		fetch: &fetched{registry: "go", name: "github.com/rogpeppe/go-internal", version: "v1.10.0"},
		edits: []edit{
			{false, "a comment above the error of its own", "testscript/exe_go118.go", "func mainStart() *testing.M {", "// mainStart starts a test binary's main without any tests.\nfunc mainStart() *testing.M {"},
			{false, "a body rewritten", "txtar/archive.go", "func Parse(data []byte) *Archive {\n\ta := new(Archive)", "func Parse(data []byte) *Archive {\n\ta := &Archive{}"},
			{false, "a line changed in the package with the error", "testscript/testscript.go", "\treturn filepath.Join(ts.cd, file)\n}", "\treturn filepath.Join(ts.cd, filepath.Clean(file))\n}"},
			{true, "cross-package method signature change", "testscript/testscript.go", "func (ts *TestScript) MkAbs(file string) string {", "func (ts *TestScript) MkAbs(file string, base string) string {"},
			{true, "cross-package signature change", "txtar/archive.go", "func Parse(data []byte) *Archive {", "func Parse(data []byte, strict bool) *Archive {"},
			{true, "cross-package return type change", "semver/semver.go", "func Compare(v, w string) int {", "func Compare(v, w string) bool {"},
		},
	},
	{
		name: "gopacket", language: "Go", errors: goEditErrors,
		note:  "its pcap and pfring packages need libpcap's and PF_RING's headers (cgo), so they, their tests and the examples built on them do not build",
		fetch: &fetched{registry: "go", name: "github.com/google/gopacket", version: "v1.1.19"},
		edits: []edit{
			{false, "a comment in a file with errors of its own", "pcap/pcap_unix.go", "const errorBufferSize = C.PCAP_ERRBUF_SIZE", "// errorBufferSize is libpcap's.\nconst errorBufferSize = C.PCAP_ERRBUF_SIZE"},
			{false, "a comment above a function", "packet.go", "func LayerDump(l Layer) string {", "// LayerDump is for debugging.\nfunc LayerDump(l Layer) string {"},
			{false, "a body rewritten", "layers/ports.go", "func (a TCPPort) String() string {\n\tif name, ok := TCPPortNames[a]; ok {", "func (a TCPPort) String() string {\n\tif name, found := TCPPortNames[a]; found {"},
			{true, "cross-package signature change", "packet.go", "func LayerDump(l Layer) string {", "func LayerDump(l Layer, indent string) string {"},
			{true, "cross-package signature change", "tcpassembly/assembly.go", "func NewAssembler(pool *StreamPool) *Assembler {", "func NewAssembler(pool *StreamPool, max int) *Assembler {"},
			{true, "type error", "layers/ports.go", "func (a TCPPort) String() string {\n\tif name, ok := TCPPortNames[a]; ok {\n\t\treturn fmt.Sprintf(\"%d(%s)\", a, name)", "func (a TCPPort) String() string {\n\tif name, ok := TCPPortNames[a]; ok {\n\t\treturn a"},
		},
	},
	{
		name: "query-core", language: "TypeScript", errors: tscOracle,
		note: "the Node global process is not declared (no @types/node) in its sources, and its tests' imports (vitest, @testing-library) are not installed",
		fetch: &fetched{registry: "npm", name: "@tanstack/query-core", version: "5.59.0",
			skip: func(rel string, dir bool) bool {
				return rel != "LICENSE" && rel != "src" && !strings.HasPrefix(rel, "src/")
			},
			add: map[string]string{"tsconfig.json": queryCoreTSConfig},
		},
		edits: []edit{
			{false, "a comment above a function, in a file with errors of its own", "src/utils.ts", "export function timeUntilStale(updatedAt: number, staleTime?: number): number {", "// How long until data updated at updatedAt is stale.\nexport function timeUntilStale(updatedAt: number, staleTime?: number): number {"},
			{false, "a body rewritten", "src/utils.ts", "          .reduce((result, key) => {\n            result[key] = val[key]\n            return result", "          .reduce((acc, key) => {\n            acc[key] = val[key]\n            return acc"},
			{false, "a comment above a function", "src/retryer.ts", "export function canFetch(networkMode: NetworkMode | undefined): boolean {", "// Whether a fetch may start now.\nexport function canFetch(networkMode: NetworkMode | undefined): boolean {"},
			{true, "cross-file signature change", "src/utils.ts", "export function timeUntilStale(updatedAt: number, staleTime?: number): number {", "export function timeUntilStale(updatedAt: number, staleTime: number | undefined, now: number): number {"},
			{true, "cross-file return type change", "src/utils.ts", "export function hashKey(queryKey: QueryKey | MutationKey): string {", "export function hashKey(queryKey: QueryKey | MutationKey): number {"},
			{true, "cross-file parameter type change", "src/retryer.ts", "export function canFetch(networkMode: NetworkMode | undefined): boolean {", "export function canFetch(networkMode: NetworkMode): boolean {"},
		},
	},
	{
		name: "ky", language: "TypeScript", dir: "ky", errors: tscOracle,
		note: "a type-only import of a development dependency that is not installed, and one strictness difference from its own tsconfig",
		edits: []edit{
			{false, "a comment above the error of its own", "source/utils/normalize.ts", "const defaultRetryOptions: InternalRetryOptions = {", "// What retry means when not told.\nconst defaultRetryOptions: InternalRetryOptions = {"},
			{false, "a comment on a line", "source/utils/delay.ts", "export default async function delay(\n\tms: number,", "export default async function delay(\n\tms: number, // milliseconds"},
			{false, "a body rewritten", "source/utils/normalize.ts", "\trequestMethods.includes(input as RequestHttpMethod) ? input.toUpperCase() : input;", "\trequestMethods.includes(input as RequestHttpMethod) ? input.toUpperCase() : `${input}`;"},
			{true, "cross-file signature change", "source/utils/normalize.ts", "export const normalizeRequestMethod = (input: string): string =>", "export const normalizeRequestMethod = (input: string, upper: boolean): string =>"},
			{true, "cross-file parameter type change", "source/utils/delay.ts", "\tms: number,\n\t{signal}: DelayOptions,", "\tms: string,\n\t{signal}: DelayOptions,"},
		},
	},
	{
		name: "click", language: "Python", errors: pyrightOracle,
		note: "its examples import what is not installed (PIL) and use click in ways its types do not allow, and its sources have errors pyright reports in basic mode",
		fetch: &fetched{registry: "deb", name: "python3-click", version: "8.1.3-2", more: []string{"python-click-doc=8.1.3-2"},
			layout: map[string]string{"usr/lib/python3/dist-packages/click": "src/click", "usr/share/doc/python-click-doc/examples": "examples"},
			add:    map[string]string{"pyproject.toml": "[project]\nname = \"click\"\nrequires-python = \">=3.11\"\n"},
		},
		edits: []edit{
			{false, "a comment appended (the report's edit)", "src/click/utils.py", "            out.extend(matches)\n\n    return out\n", "            out.extend(matches)\n\n    return out\n\n\n# End of click.utils.\n"},
			{false, "a comment above a function", "src/click/utils.py", "def make_str(value: t.Any) -> str:", "# Used by the parser.\ndef make_str(value: t.Any) -> str:"},
			{false, "a comment in a file with errors of its own", "examples/imagepipe/imagepipe.py", "from functools import update_wrapper\n", "# Needs Pillow.\nfrom functools import update_wrapper\n"},
			{false, "a comment above a class, in a file with errors of its own", "src/click/core.py", "class Context:", "# The state of a command's invocation.\nclass Context:"},
			{true, "cross-file signature change", "src/click/utils.py", "def make_str(value: t.Any) -> str:", "def make_str(value: t.Any, encoding: str) -> str:"},
			{true, "a change that breaks an example", "src/click/utils.py", "    filename: t.Union[str, bytes, os.PathLike], shorten: bool = False\n", "    filename: t.Union[str, bytes, os.PathLike], shorten: bool\n"},
			{true, "type error", "src/click/utils.py", "    return os.fsdecode(filename)", "    return os.fsencode(filename)"},
		},
	},
	{
		name: "gyp-next", language: "Python", errors: pyrightOracle,
		note: "node-gyp's gyp: imports that do not resolve (gyp from its script, CoreFoundation, _winreg) and code pyright's basic mode rejects",
		fetch: &fetched{registry: "npm", name: "node-gyp", version: "12.1.0", sub: "gyp",
			skip: func(rel string, dir bool) bool {
				return !dir && !strings.HasSuffix(rel, ".py") && rel != "LICENSE" && rel != "pyproject.toml" || dir && path.Base(rel) == "__pycache__"
			},
		},
		edits: []edit{
			{false, "a comment above a function", "pylib/gyp/common.py", "def QualifiedTarget(build_file, target, toolset):", "# build_file:target#toolset.\ndef QualifiedTarget(build_file, target, toolset):"},
			{false, "a comment in a file with errors of its own", "pylib/gyp/generator/ninja.py", "def StripPrefix(arg, prefix):", "# Drops prefix from arg.\ndef StripPrefix(arg, prefix):"},
			{false, "a body rewritten", "pylib/gyp/common.py", "def EncodePOSIXShellArgument(argument):", "def EncodePOSIXShellArgument(argument):  # noqa: N802"},
			{true, "cross-file signature change", "pylib/gyp/common.py", "def EncodePOSIXShellArgument(argument):", "def EncodePOSIXShellArgument(argument, quote):"},
			{true, "cross-file signature change (many callers)", "pylib/gyp/common.py", "def QualifiedTarget(build_file, target, toolset):", "def QualifiedTarget(build_file, target):"},
		},
	},
	{
		name: "liblmdb", language: "C", errors: cEditErrors,
		note: "lmdb's liblmdb as node's lmdb ships it: midl-sparse.c's mdb_midl_xmerge conflicts with midl.h, mtest6.c calls an undeclared function, and its warnings (formats, signedness, unused variables) are many",
		fetch: &fetched{registry: "npm", name: "lmdb", version: "3.2.6", sub: "dependencies/lmdb/libraries/liblmdb",
			skip: func(rel string, dir bool) bool {
				return !dir && !strings.HasSuffix(rel, ".c") && !strings.HasSuffix(rel, ".h") && rel != "LICENSE" && rel != "COPYRIGHT"
			},
			// The flags of its Makefile.
			add: map[string]string{"compile_flags.txt": "-pthread\n-W\n-Wall\n-Wno-unused-parameter\n-Wbad-function-cast\n-Wuninitialized\n"},
		},
		edits: []edit{
			{false, "a comment in a file with an error of its own", "mtest6.c", "/* Tests for DB splits and merges */\n", "/* Tests for DB splits and merges */\n/* Run by hand. */\n"},
			{false, "a comment above a declaration in the header", "lmdb.h", "int  mdb_env_create(MDB_env **env);", "/* See mdb_env_open. */\nint  mdb_env_create(MDB_env **env);"},
			{false, "a line changed", "mdb_stat.c", "\trc = mdb_env_create(&env);", "\trc = mdb_env_create(&env); /* the environment */"},
			{true, "header signature change", "lmdb.h", "int  mdb_env_create(MDB_env **env);", "int  mdb_env_create(MDB_env **env, unsigned int flags);"},
			{true, "header signature change (the library's own callers)", "midl.h", "int mdb_midl_append( MDB_IDL *idp, MDB_ID id );", "int mdb_midl_append( MDB_IDL *idp, MDB_ID id, int sorted );"},
			{true, "wrong argument count", "mdb_stat.c", "\trc = mdb_env_create(&env);", "\trc = mdb_env_create(&env, 1);"},
		},
	},
	{
		name: "libexpat", language: "C", errors: cEditErrors,
		note: "expat 2.2 as node-expat ships it: xmlwf/ct.c calls undeclared functions, xmlwf/win32filemap.c needs windows.h, and xmltok_impl.c and xmltok_ns.c are fragments xmltok.c includes",
		fetch: &fetched{registry: "npm", name: "node-expat", version: "2.4.1", sub: "deps/libexpat",
			skip: func(rel string, dir bool) bool {
				return !dir && !strings.HasSuffix(rel, ".c") && !strings.HasSuffix(rel, ".h") && rel != "COPYING"
			},
			add: map[string]string{"compile_flags.txt": "-Wall\n-Wextra\n-DHAVE_EXPAT_CONFIG_H\n-I.\n-Ilib\n"},
		},
		edits: []edit{
			{false, "a comment in a file with errors of its own", "xmlwf/ct.c", "#define CHARSET_MAX 41\n", "/* The longest charset name. */\n#define CHARSET_MAX 41\n"},
			{false, "a comment above a declaration in the header", "lib/expat.h", "XMLPARSEAPI(XML_Parser)\nXML_ParserCreate(const XML_Char *encoding);", "/* A parser for an encoding. */\nXMLPARSEAPI(XML_Parser)\nXML_ParserCreate(const XML_Char *encoding);"},
			{false, "a line changed", "examples/elements.c", "  XML_Parser parser = XML_ParserCreate(NULL);", "  XML_Parser parser = XML_ParserCreate(NULL); /* UTF-8 */"},
			{true, "header signature change", "lib/expat.h", "XML_ParserCreate(const XML_Char *encoding);", "XML_ParserCreate(const XML_Char *encoding, int flags);"},
			{true, "header signature change", "lib/expat.h", "XML_GetErrorCode(XML_Parser parser);", "XML_GetErrorCode(XML_Parser parser, int which);"},
			{true, "wrong argument count", "examples/elements.c", "  XML_Parser parser = XML_ParserCreate(NULL);", "  XML_Parser parser = XML_ParserCreate(NULL, 1);"},
		},
	},
}

// queryCoreTSConfig is the compiler options of query-core's repository,
// which its package leaves out.
const queryCoreTSConfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022", "DOM"],
    "jsx": "react-jsx",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["src"]
}
`

// goEditErrors is the Go type checker's errors over every package of dir
// and its tests, and go build's (a package whose cgo preprocessing fails
// is not type-checked, but go build names the line it failed at).
func goEditErrors(dir string) ([]finding, error) {
	errs, err := typeErrors(dir, true)
	if err != nil {
		return nil, err
	}
	var out []finding
	for _, e := range errs {
		out = append(out, e.finding)
	}
	build, err := run(dir, "go", "build", "./...")
	if err != nil {
		return nil, err
	}
	return append(out, parseColon(build, nil)...), nil
}

// cEditErrors is clang -fsyntax-only's errors over every .c file of dir,
// each with the project's compile flags. A unit clang stops on after its
// error limit ("too many errors emitted", which names no line) counts an
// error at its line 1, where clangd reports it.
func cEditErrors(dir string) ([]finding, error) {
	units, err := cUnits(dir)
	if err != nil {
		return nil, err
	}
	var all []finding
	for _, unit := range units {
		out, err := clangSyntax(dir, []string{unit})
		if err != nil {
			return nil, err
		}
		all = append(all, parseColon(out, func(rest string) bool {
			return strings.HasPrefix(rest, "error:") || strings.HasPrefix(rest, "fatal error:")
		})...)
		if strings.Contains(string(out), "fatal error: too many errors emitted") {
			all = append(all, finding{unit, 1})
		}
	}
	return all, nil
}

// cUnits are the .c files under dir, relative and '/'-separated.
func cUnits(dir string) ([]string, error) {
	var units []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".c") {
			rel, _ := filepath.Rel(dir, p)
			units = append(units, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(units)
	return units, err
}
