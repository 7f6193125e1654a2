package apicheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Context is the build configuration whose files are listed: GOOS=linux,
// GOARCH=amd64, cgo on, no extra tags. Files it excludes (foo_windows.go,
// a //go:build darwin line, //go:build ignore) are not parsed at all. It is
// fixed rather than taken from the environment so that the listing is the
// same on every machine.
var Context = func() build.Context {
	c := build.Default
	c.GOOS, c.GOARCH = "linux", "amd64"
	c.CgoEnabled = true
	c.BuildTags = nil
	c.ToolTags = []string{"amd64.v1"}
	c.UseAllFiles = false
	return c
}()

// module is the module being listed, with every package of it parsed so
// far (listed ones and internal ones that a listed declaration refers to).
type module struct {
	root string // directory holding go.mod
	path string // module path
	ctxt build.Context
	fset *token.FileSet
	pkgs map[string]*pkg // by directory relative to root, "." for the root
	errs map[string]error
	busy map[string]bool // being loaded: guards import cycles in broken code
}

// pkg is one parsed package: the declarations of its non-test files that
// match Context.
type pkg struct {
	mod     *module
	rel     string // directory relative to the module root, slash-separated
	name    string // package clause
	files   []*file
	types   map[string]*typeDecl
	funcs   map[string]*funcDecl
	values  map[string]*value
	methods map[string][]*funcDecl // by receiver base type name
}

// file is one parsed file and its imports.
type file struct {
	ast     *ast.File
	imports map[string]string // name used in the file -> import path
}

type typeDecl struct {
	spec *ast.TypeSpec
	f    *file
}

type funcDecl struct {
	decl *ast.FuncDecl
	f    *file
}

// value is one name of a const or var spec. For a const without an
// expression (an implicit repetition in a group), typ and val are the
// previous spec's, and iota is the name's own.
type value struct {
	name    string
	isConst bool
	typ     ast.Expr // as written, nil when absent
	val     ast.Expr // nil for a var without one
	idx     int      // index among the results of val (var a, b = f())
	multi   bool     // val is one call whose results are spread over names
	iota    int
	f       *file
}

func newModule(root string) (*module, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	mp, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	return &module{
		root: root,
		path: mp,
		ctxt: Context,
		fset: token.NewFileSet(),
		pkgs: map[string]*pkg{},
		errs: map[string]error{},
		busy: map[string]bool{},
	}, nil
}

// modulePath reads the module directive of a go.mod file.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if uq, err := strconv.Unquote(rest); err == nil {
			rest = uq
		}
		if rest != "" {
			return rest, nil
		}
	}
	return "", fmt.Errorf("%s: no module directive", gomod)
}

// listedDirs returns the directories (relative to the root, slash-separated)
// whose packages belong in the listing: everything under the root except
// hidden (. or _) directories and those named internal, testdata, examples
// or vendor, and nested modules. Whether a directory holds a non-main
// package is decided when it is loaded.
func (m *module) listedDirs() ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(m.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != m.root {
			name := d.Name()
			switch {
			case strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"),
				name == "internal", name == "testdata", name == "examples", name == "vendor":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		rel, err := filepath.Rel(m.root, p)
		if err != nil {
			return err
		}
		dirs = append(dirs, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// relOf returns the directory of an import path of this module.
func (m *module) relOf(importPath string) (string, bool) {
	if importPath == m.path {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, m.path+"/")
	return rest, ok
}

// importPath returns the import path of a directory of this module.
func (m *module) importPath(rel string) string {
	if rel == "." {
		return m.path
	}
	return m.path + "/" + rel
}

// load parses the package in directory rel. It returns nil, nil for a
// directory without Go files for Context.
func (m *module) load(rel string) (*pkg, error) {
	if p, ok := m.pkgs[rel]; ok {
		return p, nil
	}
	if err, ok := m.errs[rel]; ok {
		return nil, err
	}
	if m.busy[rel] {
		return nil, fmt.Errorf("%s: import cycle", rel)
	}
	m.busy[rel] = true
	defer delete(m.busy, rel)
	p, err := m.parseDir(rel)
	if err != nil {
		m.errs[rel] = err
		return nil, err
	}
	m.pkgs[rel] = p
	return p, nil
}

// loadImport loads an import path of this module; nil when the path is
// outside the module, in a nested module, or does not load.
func (m *module) loadImport(importPath string) *pkg {
	rel, ok := m.relOf(importPath)
	if !ok || m.nested(rel) {
		return nil
	}
	p, err := m.load(rel)
	if err != nil {
		return nil
	}
	return p
}

// nested reports whether directory rel is inside a nested module.
func (m *module) nested(rel string) bool {
	if rel == "." {
		return false
	}
	dir := m.root
	for _, elem := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, elem)
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return true
		}
	}
	return false
}

func (m *module) parseDir(rel string) (*pkg, error) {
	dir := filepath.Join(m.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		ok, err := m.ctxt.MatchFile(dir, name)
		if err != nil {
			return nil, err
		}
		if ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Strings(names)
	p := &pkg{
		mod:     m,
		rel:     rel,
		types:   map[string]*typeDecl{},
		funcs:   map[string]*funcDecl{},
		values:  map[string]*value{},
		methods: map[string][]*funcDecl{},
	}
	for _, name := range names {
		af, err := parser.ParseFile(m.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		switch {
		case p.name == "":
			p.name = af.Name.Name
		case p.name != af.Name.Name:
			return nil, fmt.Errorf("%s: packages %s and %s in one directory", dir, p.name, af.Name.Name)
		}
		p.files = append(p.files, &file{ast: af})
	}
	for _, f := range p.files {
		f.imports = m.imports(f.ast, rel)
		p.collect(f)
	}
	return p, nil
}

// imports maps the names a file uses for its imports to import paths.
func (m *module) imports(af *ast.File, rel string) map[string]string {
	im := map[string]string{}
	for _, spec := range af.Imports {
		ip, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		var name string
		switch {
		case spec.Name == nil:
			name = m.displayName(ip)
		case spec.Name.Name == "_", spec.Name.Name == ".":
			continue
		default:
			name = spec.Name.Name
		}
		im[name] = ip
	}
	return im
}

// displayName is the qualifier printed for an import path, whatever name a
// file imports it under: the package clause for packages of this module,
// else a guess from the path (see guessName).
func (m *module) displayName(importPath string) string {
	if rel, ok := m.relOf(importPath); ok && !m.busy[rel] {
		if p := m.loadImport(importPath); p != nil {
			return p.name
		}
	}
	return guessName(importPath)
}

var (
	majorElem  = regexp.MustCompile(`^v[0-9]+$`)
	gopkgMajor = regexp.MustCompile(`\.v[0-9]+$`)
)

// guessName guesses a package's name from its import path the way goimports
// does: the last element, without a major version (/v5, .v3) or a go- prefix,
// with other non-identifier characters dropped.
func guessName(importPath string) string {
	elems := strings.Split(importPath, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && majorElem.MatchString(last) {
		last = elems[len(elems)-2]
	}
	last = gopkgMajor.ReplaceAllString(last, "")
	last = strings.TrimPrefix(last, "go-")
	last = strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, last)
	if last == "" {
		return path.Base(importPath)
	}
	return last
}

// collect records a file's top-level declarations.
func (p *pkg) collect(f *file) {
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			fd := &funcDecl{decl: d, f: f}
			if d.Recv == nil {
				p.funcs[d.Name.Name] = fd
			} else if base, _, _ := recvBase(d.Recv); base != "" {
				p.methods[base] = append(p.methods[base], fd)
			}
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					p.types[ts.Name.Name] = &typeDecl{spec: ts, f: f}
				}
			case token.CONST, token.VAR:
				p.collectValues(d, f)
			}
		}
	}
}

func (p *pkg) collectValues(d *ast.GenDecl, f *file) {
	var typ ast.Expr
	var vals []ast.Expr
	for i, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		if d.Tok == token.CONST {
			if vs.Type != nil || len(vs.Values) > 0 {
				typ, vals = vs.Type, vs.Values // else repeat the previous spec
			}
		} else {
			typ, vals = vs.Type, vs.Values
		}
		multi := d.Tok == token.VAR && len(vals) == 1 && len(vs.Names) > 1
		for j, n := range vs.Names {
			v := &value{name: n.Name, isConst: d.Tok == token.CONST, typ: typ, iota: i, f: f}
			switch {
			case multi:
				v.val, v.idx, v.multi = vals[0], j, true
			case j < len(vals):
				v.val = vals[j]
			}
			p.values[n.Name] = v
		}
	}
}

// recvBase returns the base type name of a receiver, whether it is a
// pointer, and the names of its type parameters as the method spells them.
func recvBase(recv *ast.FieldList) (name string, ptr bool, tparams []string) {
	if recv == nil || len(recv.List) != 1 {
		return "", false, nil
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.StarExpr:
			ptr = true
			t = x.X
			continue
		}
		break
	}
	var idx []ast.Expr
	switch x := t.(type) {
	case *ast.IndexExpr:
		t, idx = x.X, []ast.Expr{x.Index}
	case *ast.IndexListExpr:
		t, idx = x.X, x.Indices
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return "", false, nil
	}
	for _, e := range idx {
		if tid, ok := e.(*ast.Ident); ok {
			tparams = append(tparams, tid.Name)
		} else {
			tparams = append(tparams, "_")
		}
	}
	return id.Name, ptr, tparams
}

// declares reports whether the package declares name at top level.
func (p *pkg) declares(name string) bool {
	if _, ok := p.types[name]; ok {
		return true
	}
	if _, ok := p.funcs[name]; ok {
		return true
	}
	_, ok := p.values[name]
	return ok
}

// internal reports whether the package is one of the module's internal
// packages, which the listing does not show.
func (p *pkg) internal() bool {
	for _, elem := range strings.Split(p.rel, "/") {
		if elem == "internal" {
			return true
		}
	}
	return false
}
