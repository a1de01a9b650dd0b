package main

import (
	"path"
	"strings"
)

// A project is a real code base — in testdata (see SOURCES.md), or
// fetched from a registry when it is too large to keep — with its compiler
// as the oracle.
type project struct {
	name, language string
	dir            string   // under testdata
	fetch          *fetched // or from a registry
	exts           []string // the source files checked
	severities     []string // what lspkit reports that the oracle counts
	oracle         func(dir string) ([]finding, error)
	breaks         []brk
}

// goSources leaves out a Go module's tests and testdata (files it embeds
// are kept: go vet reads them).
func goSources(rel string, dir bool) bool {
	if dir {
		return path.Base(rel) == "testdata"
	}
	return strings.HasSuffix(rel, "_test.go")
}

// A brk is one injected break: in file, old (which must occur exactly
// once) becomes new.
type brk struct {
	kind, file, old, new string
}

var projects = []project{
	{
		name: "chi", language: "Go", dir: "chi", exts: []string{".go"},
		severities: []string{"error", "warning"}, // go vet's findings are gopls warnings
		oracle:     goOracle,
		breaks: []brk{
			{"type error", "context.go", `routePattern := strings.Join(x.RoutePatterns, "")`, `routePattern := strings.Join(x.RoutePatterns, 1)`},
			{"undefined name", "chain.go", `c.chain.ServeHTTP(w, r)`, `c.chian.ServeHTTP(w, r)`},
			{"wrong argument count", "chain.go", "func (mws Middlewares) Handler(h http.Handler) http.Handler {\n\treturn &ChainHandler{h, chain(mws, h), mws}", "func (mws Middlewares) Handler(h http.Handler) http.Handler {\n\treturn &ChainHandler{h, chain(mws), mws}"},
			{"unused import", "chain.go", `import "net/http"`, "import (\n\t\"net/http\"\n\t\"os\"\n)"},
			{"printf misuse", "mux.go", `panic(fmt.Sprintf("chi: '%s' http method is not supported.", method))`, `panic(fmt.Sprintf("chi: '%d' http method is not supported.", method))`},
			{"cross-file signature change", "context.go", `func NewRouteContext() *Context {`, `func NewRouteContext(capacity int) *Context {`},
		},
	},
	{
		name: "cobra", language: "Go", dir: "cobra", exts: []string{".go"},
		severities: []string{"error", "warning"},
		oracle:     goOracle,
		breaks: []brk{
			{"cross-file signature change", "cobra.go", `func WriteStringAndCheck(b io.StringWriter, s string) {`, `func WriteStringAndCheck(b io.StringWriter, s string, n int) {`},
			{"cross-file rename", "cobra.go", `func CheckErr(msg interface{}) {`, `func CheckError(msg interface{}) {`},
			{"cross-file method signature change", "command.go", `func (c *Command) Name() string {`, `func (c *Command) Name(full bool) string {`},
		},
	},
	{
		name: "x/tools", language: "Go", exts: []string{".go"},
		severities: []string{"error", "warning"},
		oracle:     goOracle,
		fetch:      &fetched{registry: "go", name: "golang.org/x/tools", version: "v0.43.0", skip: goSources},
		breaks: []brk{
			{"type error", "internal/typesinternal/types.go", "\treturn obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()", "\treturn obj.Pkg()"},
			{"printf misuse", "go/analysis/passes/composite/composite.go", `Message: fmt.Sprintf("%s struct literal uses unkeyed fields", typeName),`, `Message: fmt.Sprintf("%d struct literal uses unkeyed fields", typeName),`},
			{"cross-package signature change", "internal/typesinternal/recv.go", `func ReceiverNamed(recv *types.Var) (isPtr bool, named *types.Named) {`, `func ReceiverNamed(recv *types.Var, deep bool) (isPtr bool, named *types.Named) {`},
			{"cross-package rename", "internal/typesinternal/recv.go", `func Unpointer(t types.Type) types.Type {`, `func Unptr(t types.Type) types.Type {`},
			{"cross-package method signature change", "go/ast/inspector/cursor.go", `func (c Cursor) Contains(c2 Cursor) bool {`, `func (c Cursor) Contains(c2 Cursor, strict bool) bool {`},
		},
	},
	{
		name: "ky", language: "TypeScript", dir: "ky", exts: []string{".ts"},
		severities: []string{"error"},
		oracle:     tscOracle,
		breaks: []brk{
			{"type error", "source/utils/delay.ts", "\t\t}, ms);", "\t\t}, String(ms));"},
			{"undefined name", "source/utils/delay.ts", "\t\t\tclearTimeout(timeoutId);", "\t\t\tclearTimeout(timeoutIdd);"},
			{"wrong argument count", "source/core/Ky.ts", "\t\tawait delay(retryDelay, delayOptions);", "\t\tawait delay(retryDelay, delayOptions, 1);"},
			{"cross-file signature change", "source/utils/delay.ts", "\tms: number,\n\t{signal}: DelayOptions,", "\tms: string,\n\t{signal}: DelayOptions,"},
		},
	},
	{
		name: "rxjs", language: "TypeScript", exts: []string{".ts"},
		severities: []string{"error"},
		oracle:     tscOracle,
		fetch: &fetched{registry: "npm", name: "rxjs", version: "7.8.2",
			skip: func(rel string, dir bool) bool {
				return rel != "LICENSE.txt" && rel != "src" && !strings.HasPrefix(rel, "src/") ||
					strings.HasPrefix(path.Base(rel), "tsconfig") || strings.HasSuffix(rel, ".js")
			},
			add: map[string]string{"tsconfig.json": rxjsTSConfig},
		},
		breaks: []brk{
			{"type error", "src/internal/util/noop.ts", "export function noop() { }", "export function noop(): number { }"},
			{"undefined name", "src/internal/util/isFunction.ts", "  return typeof value === 'function';", "  return typeof valu === 'function';"},
			{"cross-file signature change", "src/internal/util/isFunction.ts", "export function isFunction(value: any): value is (...args: any[]) => any {", "export function isFunction(value: any, strict: boolean): value is (...args: any[]) => any {"},
			{"cross-file rename", "src/internal/util/noop.ts", "export function noop() { }", "export function noOp() { }"},
			{"cross-file signature change (60 files)", "src/internal/operators/OperatorSubscriber.ts", "export function createOperatorSubscriber<T>(\n  destination: Subscriber<any>,\n", "export function createOperatorSubscriber<T>(\n  destination: Subscriber<any>,\n  name: string,\n"},
		},
	},
	{
		name: "click", language: "Python", dir: "click", exts: []string{".py"},
		severities: []string{"error"},
		oracle:     pyrightOracle,
		breaks: []brk{
			{"type error", "src/click/utils.py", "            return value.decode(\"utf-8\", \"replace\")\n    return str(value)", "            return value.decode(\"utf-8\", \"replace\")\n    return 42"},
			{"undefined name", "src/click/utils.py", `    paragraph_end = help.find("\n\n")`, `    paragraph_end = hlp.find("\n\n")`},
			{"wrong argument count", "src/click/core.py", `        cmd_name = make_str(args[0])`, `        cmd_name = make_str(args[0], args[1])`},
			{"cross-file signature change", "src/click/utils.py", `def make_str(value: t.Any) -> str:`, `def make_str(value: t.Any, encoding: str) -> str:`},
			{"cross-file rename", "src/click/utils.py", `def make_str(value: t.Any) -> str:`, `def make_string(value: t.Any) -> str:`},
		},
	},
	{
		name: "itsdangerous", language: "Python", dir: "itsdangerous", exts: []string{".py"},
		severities: []string{"error"},
		oracle:     pyrightOracle,
		breaks: []brk{
			{"type error", "src/itsdangerous/encoding.py", `    return _int_to_bytes(num).lstrip(b"\x00")`, `    return num.lstrip(b"\x00")`},
			{"cross-file rename", "src/itsdangerous/encoding.py", "def want_bytes(\n", "def want_bytes_of(\n"},
			{"cross-file signature change", "src/itsdangerous/encoding.py", `def bytes_to_int(bytestr: bytes) -> int:`, `def bytes_to_int(bytestr: bytes, signed: bool) -> int:`},
			{"cross-file return type change", "src/itsdangerous/encoding.py", "def base64_decode(string: str | bytes) -> bytes:", "def base64_decode(string: str | bytes) -> str:"},
		},
	},
	{
		name: "sqlalchemy", language: "Python", exts: []string{".py"},
		severities: []string{"error"},
		oracle:     pyrightOracle,
		fetch: &fetched{registry: "deb", name: "python3-sqlalchemy", version: "1.4.46+ds1-1", sub: "usr/lib/python3/dist-packages",
			skip: func(rel string, dir bool) bool {
				return rel != "sqlalchemy" && !strings.HasPrefix(rel, "sqlalchemy/") || dir && path.Base(rel) == "__pycache__"
			},
			add: map[string]string{"pyproject.toml": "[project]\nname = \"sqlalchemy\"\nrequires-python = \">=3.11\"\n"},
		},
		breaks: []brk{
			{"type error", "sqlalchemy/util/langhelpers.py", "    instance._creation_order = _creation_order\n    _creation_order += 1", "    instance._creation_order = _creation_order\n    _creation_order += \"1\""},
			{"cross-file signature change", "sqlalchemy/util/langhelpers.py", "def warn_limited(msg, args):", "def warn_limited(msg, args, stacklevel):"},
			{"cross-file rename", "sqlalchemy/util/langhelpers.py", "def set_creation_order(instance):", "def set_creation_order_of(instance):"},
			{"cross-file signature change (16 files)", "sqlalchemy/util/_collections.py", "def to_list(x, default=None):", "def to_list(x, default, strict):"},
		},
	},
	{
		name: "cJSON", language: "C", dir: "cjson", exts: []string{".c", ".h"},
		severities: []string{"error"},
		oracle:     clangOracle,
		breaks: []brk{
			{"type error", "cJSON.c", "    sprintf(version, \"%i.%i.%i\", CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH);\n\n    return version;", "    sprintf(version, \"%i.%i.%i\", CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH);\n\n    return 42;"},
			{"undefined name", "cJSON_Utils.c", `        return strcmp((const char*)string1, (const char*)string2);`, `        return strcmp((const char*)string1, (const char*)string3);`},
			{"wrong argument count", "cJSON_Utils.c", `        cJSON_Delete(root->child);`, `        cJSON_Delete(root->child, 1);`},
			{"cross-file signature change (header)", "cJSON.h", `CJSON_PUBLIC(void) cJSON_Delete(cJSON *item);`, `CJSON_PUBLIC(void) cJSON_Delete(cJSON *item, int flags);`},
			{"cross-file signature change (header)", "cJSON.h", `CJSON_PUBLIC(cJSON *) cJSON_Duplicate(const cJSON *item, cJSON_bool recurse);`, `CJSON_PUBLIC(cJSON *) cJSON_Duplicate(const cJSON *item, cJSON_bool recurse, int depth);`},
		},
	},
	{
		name: "zstd", language: "C", exts: []string{".c", ".h"},
		severities: []string{"error"},
		oracle:     clangOracle,
		fetch: &fetched{registry: "go", name: "github.com/DataDog/zstd", version: "v1.5.7",
			skip: func(rel string, dir bool) bool {
				return dir || rel != "LICENSE" && rel != "ZSTD_LICENSE" && !strings.HasSuffix(rel, ".c") && !strings.HasSuffix(rel, ".h")
			},
			// The flags its cgo build compiles with.
			add: map[string]string{"compile_flags.txt": "-std=c99\n-Wall\n-DZSTD_LEGACY_SUPPORT=4\n-DZSTD_MULTITHREAD=1\n"},
		},
		breaks: []brk{
			{"type error", "zstd_common.c", `const char* ZSTD_versionString(void) { return ZSTD_VERSION_STRING; }`, `const char* ZSTD_versionString(void) { return 42; }`},
			{"undefined name", "cover.c", `POOL_add(pool, &COVER_tryParameters, data);`, `POOL_add(pool, &COVER_tryParams, data);`},
			{"wrong argument count", "fastcover.c", `POOL_add(pool, &FASTCOVER_tryParameters, data);`, `POOL_add(pool, &FASTCOVER_tryParameters, data, 1);`},
			{"cross-file signature change (header)", "fse.h", "const unsigned* count, size_t srcSize, unsigned maxSymbolValue, unsigned useLowProbCount);", "const unsigned* count, size_t srcSize, unsigned maxSymbolValue, unsigned useLowProbCount, int strict);"},
			{"cross-file signature change (header)", "zstd_internal.h", "size_t ZSTD_getcBlockSize(const void* src, size_t srcSize,\n                          blockProperties_t* bpPtr);", "size_t ZSTD_getcBlockSize(const void* src, size_t srcSize,\n                          blockProperties_t* bpPtr, int strict);"},
			{"cross-file signature change (header)", "pool.h", "void POOL_add(POOL_ctx* ctx, POOL_function function, void* opaque);", "void POOL_add(POOL_ctx* ctx, POOL_function function, void* opaque, int priority);"},
		},
	},
}

// rxjsTSConfig builds rxjs's sources alone, as its own build does (strict,
// the DOM library), with the module resolution TypeScript 6 keeps.
const rxjsTSConfig = `{
  "compilerOptions": {
    "strict": true,
    "noImplicitReturns": true,
    "noEmit": true,
    "target": "es2015",
    "module": "esnext",
    "moduleResolution": "bundler",
    "lib": ["esnext", "dom"],
    "types": [],
    "paths": {"rxjs": ["./src"], "rxjs/*": ["./src/*"]}
  },
  "include": ["src/**/*.ts"]
}
`
