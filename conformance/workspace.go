package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sample is a small workspace for one language: its files, and the one the
// script aims at. Each has a line of non-ASCII text (positions are checked
// on it in the negotiated encoding), a name declared and used, and a
// finding for the server to report.
type sample struct {
	files map[string]string
	file  string
}

var samples = map[string]sample{
	"go": {file: "main.go", files: map[string]string{
		"go.mod": "module example.com/conform\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\n// Greeting says héllo 🙂 to name.\nfunc Greeting(name string) string {\n\treturn \"héllo 🙂 \" + name\n}\n\n" +
			"type Shape interface{ Area() float64 }\n\ntype Square struct{ Side float64 }\n\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n\n" +
			"func main() {\n\tvar n int = \"not a number\"\n\tfmt.Println(Greeting(\"wörld\"), n, Square{2}.Area())\n}\n",
	}},
	"typescript": {file: "main.ts", files: map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}` + "\n",
		"main.ts": "// héllo 🙂\nexport interface Shape { area(): number }\n\nexport class Square implements Shape {\n  constructor(private side: number) {}\n  area(): number { return this.side * this.side; }\n}\n\n" +
			"export function greeting(name: string): string {\n  return \"héllo 🙂 \" + name;\n}\n\nconst n: number = \"not a number\";\nconsole.log(greeting(\"wörld\"), n, new Square(2).area());\n",
	}},
	"javascript": {file: "main.js", files: map[string]string{
		"package.json":      `{"name":"conform","type":"module"}` + "\n",
		"eslint.config.mjs": "export default [{ files: [\"**/*.js\"], rules: { \"prefer-const\": \"error\", \"no-unused-vars\": \"error\" } }];\n",
		"main.js":           "// héllo 🙂\nexport function greeting(name) {\n  let text = \"héllo 🙂 \" + name;\n  return text;\n}\n\nconsole.log(greeting(\"wörld\"));\n",
	}},
	"python": {file: "main.py", files: map[string]string{
		"pyproject.toml": "[project]\nname = \"conform\"\n",
		"main.py": "# héllo 🙂\nclass Square:\n    def __init__(self, side: float) -> None:\n        self.side = side\n\n    def area(self) -> float:\n        return self.side * self.side\n\n\n" +
			"def greeting(name: str) -> str:\n    return \"héllo 🙂 \" + name\n\n\nn: int = \"not a number\"\nprint(greeting(\"wörld\"), n, Square(2).area())\n",
	}},
	"c": {file: "main.c", files: map[string]string{
		"compile_flags.txt": "-xc\n-std=c11\n",
		"main.c":            "#include <stdio.h>\n\n/* héllo 🙂 */\nstatic int square(int side) { return side * side; }\n\nint main(void) {\n  const char *s = \"héllo 🙂\";\n  int n = \"not a number\";\n  printf(\"%s %d %d\\n\", s, n, square(2));\n  return undefined_name;\n}\n",
	}},
	"css": {file: "main.css", files: map[string]string{
		"main.css": "/* héllo 🙂 */\n:root { --main-color: #333; }\n.title::before { content: \"héllo 🙂\"; color: var(--main-color); }\n.broken { color: ; widht: 3px; }\n",
	}},
	"html": {file: "index.html", files: map[string]string{
		"index.html": "<!DOCTYPE html>\n<html>\n<head><title>héllo 🙂</title>\n<style>.title { color: red; }</style></head>\n<body>\n<p class=\"title\" id=\"title\">héllo 🙂</p>\n<a href=\"#title\">title</a>\n</body>\n</html>\n",
	}},
	"json": {file: "data.json", files: map[string]string{
		"data.json": "{\n  \"greeting\": \"héllo 🙂\",\n  \"greeting2\": \"héllo\",\n  \"list\": [1, 2, 3,],\n  \"greeting\": \"again\"\n}\n",
	}},
	"yaml": {file: "data.yaml", files: map[string]string{
		"data.yaml": "# héllo 🙂\ngreeting: &greeting \"héllo 🙂\"\nagain: *greeting\nlist:\n  - 1\n  - 2\nbroken: [1, 2\n",
	}},
	"php": {file: "main.php", files: map[string]string{
		"composer.json": "{}\n",
		"main.php":      "<?php\n// héllo 🙂\nfunction greeting(string $name): string {\n    return \"héllo 🙂 \" . $name;\n}\n\necho greeting(\"wörld\");\n$x = ;\n",
	}},
	"dockerfile": {file: "Dockerfile", files: map[string]string{
		"Dockerfile": "# héllo 🙂\nFROM alpine:3.20\nARG NAME=wörld\nENV GREETING=\"héllo 🙂 ${NAME}\"\nRUN echo \"$GREETING\"\nCOPY\n",
	}},
	"ansible": {file: "playbook.yml", files: map[string]string{
		"ansible.cfg":  "[defaults]\n",
		"playbook.yml": "---\n# héllo 🙂\n- name: Greet\n  hosts: all\n  tasks:\n    - name: Say héllo 🙂\n      ansible.builtin.debug:\n        msg: [héllo\n",
	}},
	"astro": {file: "index.astro", files: map[string]string{
		"package.json":  `{"name":"conform","private":true}` + "\n",
		"tsconfig.json": `{"compilerOptions":{"strict":true}}` + "\n",
		"index.astro":   "---\n// héllo 🙂\nfunction greeting(name: string): string {\n  return \"héllo 🙂 \" + name;\n}\nconst n: number = \"not a number\";\n---\n<h1>{greeting(\"wörld\")} {n}</h1>\n",
	}},
	"svelte": {file: "App.svelte", files: map[string]string{
		"package.json":  `{"name":"conform","private":true}` + "\n",
		"tsconfig.json": `{"compilerOptions":{"strict":true}}` + "\n",
		"App.svelte":    "<script lang=\"ts\">\n  // héllo 🙂\n  function greeting(name: string): string {\n    return \"héllo 🙂 \" + name;\n  }\n  let n: number = \"not a number\";\n</script>\n\n<h1>{greeting(\"wörld\")} {n}</h1>\n",
	}},
	"prisma": {file: "schema.prisma", files: map[string]string{
		"package.json":  `{"name":"conform","private":true}` + "\n",
		"schema.prisma": "// héllo 🙂\ndatasource db {\n  provider = \"postgresql\"\n}\n\nenum Role {\n  ADMIN\n  MEMBER\n}\n\nmodel User {\n  id   Int  @id\n  role Role\n  team Tem\n}\n",
	}},
	"graphql": {file: "query.graphql", files: map[string]string{
		".graphqlrc.yml": "schema: schema.graphql\ndocuments: \"*.graphql\"\n",
		"schema.graphql": "# héllo 🙂\ntype Query {\n  greeting(name: String!): String\n  user: User\n}\n\ntype User {\n  name: String\n}\n",
		"query.graphql":  "# héllo 🙂\nquery Q {\n  greeting(name: \"wörld\")\n  user { nom }\n}\n",
	}},
	"vim": {file: "main.vim", files: map[string]string{
		"main.vim": "\" héllo 🙂\nfunction! Greeting(name) abort\n  return 'héllo 🙂 ' . a:name\nendfunction\n\necho Greeting('wörld')\nlet x = \n",
	}},
	"dockercompose": {file: "docker-compose.yml", files: map[string]string{
		"docker-compose.yml": "# héllo 🙂\nservices:\n  web:\n    image: nginx\n    environment:\n      GREETING: héllo 🙂\n  db:\n    image\n",
	}},
	"templ": {file: "hello.templ", files: map[string]string{
		"go.mod":      "module example.com/conform\n\ngo 1.22\n\nrequire github.com/a-h/templ v0.3.1100\n",
		"go.sum":      "github.com/a-h/templ v0.3.1100 h1:lQhjVs1IL+M6QWUvojaFBd21+kzwATppSyWkWB9oHoM=\ngithub.com/a-h/templ v0.3.1100/go.mod h1:j1WAOR7749mlo1AxFLQ7qbDFW5VwyoqszRTlKqEHN9M=\n",
		"hello.templ": "package main\n\n// héllo 🙂\ntempl Greeting(name string) {\n\t<p>héllo 🙂 { name }\n}\n",
	}},
	"proto": {file: "foo/v1/item.proto", files: map[string]string{
		"buf.yaml":          "version: v2\n",
		"foo/v1/item.proto": "syntax = \"proto3\";\n\n// héllo 🙂\npackage foo.v1;\n\nmessage Item {\n  string name = 1; // wörld 🙂\n  Tag tag = 2;\n  Missing other = 3;\n}\n\nmessage Tag {\n  string label = 1;\n}\n",
	}},
	"fortran": {file: "main.f90", files: map[string]string{
		"main.f90": "program main\n  ! héllo 🙂\n  implicit none\n  integer :: n\n  integer :: n\n  n = 1\n  call greet(n)\ncontains\n  subroutine greet(k)\n    integer, intent(in) :: k\n    print *, 'héllo 🙂', k\n  end subroutine greet\nend program main\n",
	}},
	"perl": {file: "main.pl", files: map[string]string{
		"main.pl": "use strict;\nuse warnings;\n# héllo 🙂\nsub greeting { my ($name) = @_; return \"héllo 🙂 \" . $name; }\nprint greeting(\"wörld\");\nprint $undeclared;\n",
	}},
	"shellscript": {file: "main.sh", files: map[string]string{
		"main.sh": "#!/bin/bash\n# héllo 🙂\ngreeting() {\n  echo \"héllo 🙂 $1\"\n}\n\ngreeting wörld\nname=$1\necho $name\nif [ $name = x ]; then echo yes; fi\n",
	}},
}

// Languages lists the languages lspkit conform has a workspace for.
func Languages() []string {
	var out []string
	for l := range samples {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// WriteWorkspace writes the sample workspace for language into dir and
// returns the file the script aims at (relative to dir); ok is false for
// a language without one.
func WriteWorkspace(dir, language string) (file string, ok bool, err error) {
	s, ok := samples[strings.ToLower(language)]
	if !ok {
		return "", false, nil
	}
	for name, text := range s.files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", true, err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return "", true, err
		}
	}
	return s.file, true, nil
}
