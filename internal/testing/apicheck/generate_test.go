package apicheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureAPI is the listing of testdata/fixture.
var fixtureAPI = []string{
	"pkg shapes, const Circle Kind = 0",
	"pkg shapes, const KB = 1024",
	"pkg shapes, const MB = 1048576",
	"pkg shapes, const Name = \"shapes\"",
	"pkg shapes, const Square Kind = 1",
	"pkg shapes, const Tick time.Duration = time.Millisecond",
	"pkg shapes, const Timeout time.Duration = 30 * time.Second",
	"pkg shapes, const Triangle Kind = 3",
	"pkg shapes, const Twice time.Duration = 4 * time.Second",
	"pkg shapes, const Wait time.Duration = 2 * time.Second",
	"pkg shapes, func AMD64Only()",
	"pkg shapes, func LinuxOnly()",
	"pkg shapes, func Map[K comparable, V any, W any](map[K]V, func(V) W) map[K]W",
	"pkg shapes, func NewBox(int) *Box",
	"pkg shapes, func Sum[T Number](...T) T",
	"pkg shapes, method (*Box) Grow(int) int",
	"pkg shapes, method (*Box) Reset()",
	"pkg shapes, method (*Pair[K, V]) Set(K, V)",
	"pkg shapes, method (Box) Ident() int",
	"pkg shapes, method (Box) Volume() int",
	"pkg shapes, method (Pair[K, V]) Get() K",
	"pkg shapes, type Box struct",
	"pkg shapes, type Box struct, Callback func(context.Context, int) error",
	"pkg shapes, type Box struct, Depth int",
	"pkg shapes, type Box struct, ID int",
	"pkg shapes, type Box struct, In <-chan int",
	"pkg shapes, type Box struct, Nested chan (<-chan int)",
	"pkg shapes, type Box struct, Out chan<- int",
	"pkg shapes, type Box struct, Point struct{X int; Y int}",
	"pkg shapes, type Box struct, Size int",
	"pkg shapes, type Box struct, embedded *time.Location",
	"pkg shapes, type Box struct, embedded Meta",
	"pkg shapes, type Handler = func(context.Context) error",
	"pkg shapes, type Kind int",
	"pkg shapes, type Matrix [2][2]float64",
	"pkg shapes, type Meta struct",
	"pkg shapes, type Meta struct, Tags []string",
	"pkg shapes, type Number interface",
	"pkg shapes, type Number interface, ~int | ~float64",
	"pkg shapes, type Options struct",
	"pkg shapes, type Options struct, Size int",
	"pkg shapes, type Pair[K comparable, V any] struct",
	"pkg shapes, type Pair[K comparable, V any] struct, Key K",
	"pkg shapes, type Pair[K comparable, V any] struct, Val V",
	"pkg shapes, type Shape interface",
	"pkg shapes, type Shape interface, Area() float64",
	"pkg shapes, type Shape interface, Close() error",
	"pkg shapes, type Shape interface, Scale(float64, context.Context) (Shape, error)",
	"pkg shapes, type Shape interface, embedded fmt.Stringer",
	"pkg shapes, type Shape interface, unexported methods",
	"pkg shapes, var Count int",
	"pkg shapes, var Default *Box",
	"pkg shapes, var DefaultOptions Options",
	"pkg shapes, var ErrBad error",
	"pkg shapes, var Limit int",
	"pkg shapes, var Started time.Time",
	"pkg shapes, var Total int",
	"pkg sub/deep, func Wrap(*shapes.Box) shapes.Pair[string, int]",
	"pkg sub/deep, var Zero *shapes.Box",
}

func generate(t *testing.T, root string) []string {
	t.Helper()
	lines, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestGenerateFixture(t *testing.T) {
	t.Parallel()
	got := generate(t, filepath.Join("testdata", "fixture"))
	if diff := Diff(fixtureAPI, got); len(diff) > 0 {
		t.Errorf("listing of testdata/fixture (- want, + got):\n%s", strings.Join(diff, "\n"))
	}
}

// TestGenerateExcludes names what the listing must leave out, each for
// its own reason, so that a regression says which rule broke.
func TestGenerateExcludes(t *testing.T) {
	t.Parallel()
	got := strings.Join(generate(t, filepath.Join("testdata", "fixture")), "\n")
	for _, name := range []struct{ item, why string }{
		{"Visible", "a method of an unexported type"},
		{"WindowsOnly", "a _windows.go file"},
		{"DarwinOnly", "a //go:build darwin || freebsd file"},
		{"Generator", "a //go:build ignore file"},
		{"ExportedInTest", "a _test.go file"},
		{"Secret", "a package under internal/"},
		{"defaults", "an internal package"},
		{"Demo", "a package under examples/"},
		{"Tool", "a main package"},
		{"InNestedModule", "a nested module"},
		{"Hidden", "a hidden directory"},
		{"Scratch", "a _ directory"},
		{"Data", "a package under testdata/"},
		{"note", "an unexported field"},
		{"hidden", "an unexported field or method"},
		{"internalOnly", "an unexported var"},
		{"helper", "an unexported func"},
		{"sealed", "an unexported interface method"},
		{"Grow() bool", "a promoted method shadowed by the outer type's"},
		{"Depth string", "a promoted field shadowed by the outer type's"},
		{"String() string", "a method promoted from an embedded exported type"},
		{"inner", "an unexported field of an embedded type"},
	} {
		if strings.Contains(got, name.item) {
			t.Errorf("the listing has %s, %s:\n%s", name.item, name.why, grep(got, name.item))
		}
	}
}

func grep(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, "\t"+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestRenameIsNoChange: renaming parameters, results and a method's
// receiver type parameters, regrouping parameters, renaming imports and
// moving declarations leave the listing as it was.
func TestRenameIsNoChange(t *testing.T) {
	t.Parallel()
	before := generate(t, filepath.Join("testdata", "rename", "before"))
	after := generate(t, filepath.Join("testdata", "rename", "after"))
	if len(before) == 0 {
		t.Fatal("testdata/rename/before lists nothing")
	}
	if diff := Diff(before, after); len(diff) > 0 {
		t.Errorf("a refactoring that changes no API changed the listing:\n%s", strings.Join(diff, "\n"))
	}
	want := "pkg p, method (*Cache[K, V]) Get(context.Context, K) (V, bool)"
	if !slices.Contains(after, want) {
		t.Errorf("listing lacks %q:\n%s", want, strings.Join(after, "\n"))
	}
}

// copyFixture copies testdata/fixture to a temporary module root.
func copyFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "fixture"))); err != nil {
		t.Fatal(err)
	}
	return root
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckReportsChanges accepts a fixture's API, then removes an
// exported method and adds a func: the comparison TestAPI makes must
// fail, naming both, and say how to accept them.
func TestCheckReportsChanges(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	file := filepath.Join(root, "api", "fixture.txt")
	if err := Update(root, file); err != nil {
		t.Fatal(err)
	}
	if msg, err := compare(root, file); err != nil || msg != "" {
		t.Fatalf("right after Update: %q, %v", msg, err)
	}

	src := filepath.Join(root, "shapes", "shapes.go")
	edit(t, src, "func (b *Box) Grow(by int) (newSize int) { b.Size += by; return b.Size }\n", "")
	edit(t, src, "func helper() {}", "func helper() {}\n\nfunc Added(s string) {}")

	diff, err := Check(root, file)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"+pkg shapes, func Added(string)",
		"-pkg shapes, method (*Box) Grow(int) int",
		"+pkg shapes, method (Box) Grow() bool", // base.Grow is no longer shadowed
	}
	if !slices.Equal(diff, want) {
		t.Errorf("Check = %q, want %q", diff, want)
	}
	msg, err := compare(root, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(want, "go test ./internal/testing/apicheck -update", "1 line(s) removed") {
		if !strings.Contains(msg, s) {
			t.Errorf("report lacks %q:\n%s", s, msg)
		}
	}
}

// TestCheckReportsTypeChange: changing a parameter's type is a removal and
// an addition of the same item.
func TestCheckReportsTypeChange(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	file := filepath.Join(root, "api.txt")
	if err := Update(root, file); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(root, "shapes", "shapes.go"), "func NewBox(size int) *Box { return &Box{Size: size} }",
		"func NewBox(size int64) *Box { return &Box{Size: int(size)} }")
	diff, err := Check(root, file)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-pkg shapes, func NewBox(int) *Box", "+pkg shapes, func NewBox(int64) *Box"}
	if !slices.Equal(diff, want) {
		t.Errorf("Check = %q, want %q", diff, want)
	}
}

func TestCheckMissingFile(t *testing.T) {
	t.Parallel()
	msg, err := compare(filepath.Join("testdata", "fixture"), filepath.Join(t.TempDir(), "none.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "-update") {
		t.Errorf("report = %q, want a hint to create it with -update", msg)
	}
}

func TestUpdateFormat(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	file := filepath.Join(root, "api.txt")
	if err := Update(root, file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(fixtureAPI, "\n") + "\n"; string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	want := []string{"a", "c", "d"}
	got := []string{"b", "c", "e"}
	if d, w := Diff(want, got), []string{"-a", "+b", "-d", "+e"}; !slices.Equal(d, w) {
		t.Errorf("Diff = %q, want %q", d, w)
	}
	if d := Diff(want, want); d != nil {
		t.Errorf("Diff of equal listings = %q", d)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	got := Parse([]byte("pkg b, func B()\r\n\npkg a, func A()\npkg a, func A()\n"))
	if want := []string{"pkg a, func A()", "pkg b, func B()"}; !slices.Equal(got, want) {
		t.Errorf("Parse = %q, want %q", got, want)
	}
}

func TestGenerateParseError(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	edit(t, filepath.Join(root, "shapes", "shapes.go"), "func helper() {}", "func helper( {}")
	if _, err := Generate(root); err == nil || !strings.Contains(err.Error(), "shapes.go") {
		t.Errorf("Generate of a file that does not parse: err = %v, want one naming shapes.go", err)
	}
}
