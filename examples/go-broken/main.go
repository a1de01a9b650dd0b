// Command gobroken has one deliberate type error, for `lspkit check`.
package main

import "fmt"

func answer() int { return 42 }

func main() {
	var greeting string = answer() // deliberate: an int is not a string
	fmt.Println(greeting)
}
