package main

// A project is a real code base in testdata (see SOURCES.md) with its
// compiler as the oracle.
type project struct {
	name, language string
	dir            string   // under testdata
	exts           []string // the source files checked
	severities     []string // what lspkit reports that the oracle counts
	oracle         func(dir string) ([]finding, error)
	breaks         []brk
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
}
