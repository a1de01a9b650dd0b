package impact

import (
	"regexp"
)

// includeDirective is a C preprocessor include, "quoted" or <angled>.
var includeDirective = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*(?:include|import)[ \t]*["<]([^">\n]+)[">]`)

// includeDeps reads the include directives of a C-family file.
func includeDeps(text string) []dep {
	var deps []dep
	for _, m := range includeDirective.FindAllStringSubmatch(text, -1) {
		deps = append(deps, dep{target: m[1]})
	}
	return deps
}
