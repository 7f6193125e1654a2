package apicheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Generate lists the exported API of every public package of the module
// rooted at root (the directory holding its go.mod), one sorted line per
// item. Packages are parsed, never type-checked: a package that does not
// compile is listed all the same, as long as its files parse.
func Generate(root string) ([]string, error) {
	m, err := newModule(root)
	if err != nil {
		return nil, err
	}
	dirs, err := m.listedDirs()
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, rel := range dirs {
		p, err := m.load(rel)
		if err != nil {
			return nil, err
		}
		if p == nil || p.name == "main" {
			continue
		}
		lines = append(lines, p.api()...)
	}
	sort.Strings(lines)
	return slices.Compact(lines), nil
}

// Format renders lines as the contents of an API file: one per line, each
// ending with a newline.
func Format(lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Parse reads the lines of an API file, sorted, blank ones dropped.
func Parse(data []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return slices.Compact(lines)
}

// Diff compares two sorted listings: each line only in want comes back
// prefixed "-" (removed from the API), each line only in got "+" (added),
// in sorted order.
func Diff(want, got []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i] < got[j]:
			out = append(out, "-"+want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			out = append(out, "+"+got[j])
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// Check regenerates the listing of the module at root and compares it with
// the API file at apiFile, returning the differences as Diff does (nil
// when the file is up to date).
func Check(root, apiFile string) ([]string, error) {
	got, err := Generate(root)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(apiFile)
	if err != nil {
		return nil, err
	}
	return Diff(Parse(data), got), nil
}

// Update regenerates the listing of the module at root and writes it to
// apiFile.
func Update(root, apiFile string) error {
	got, err := Generate(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(apiFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(apiFile, Format(got), 0o644)
}

// label is the package's name in the listing: its directory relative to
// the module root ("health/prometheus"), or the module path for the root.
func (p *pkg) label() string {
	if p.rel == "." {
		return p.mod.path
	}
	return p.rel
}

// lister collects the lines of one package.
type lister struct {
	p     *pkg
	self  string
	lines []string
}

func (l *lister) add(format string, args ...any) {
	l.lines = append(l.lines, "pkg "+l.p.label()+", "+fmt.Sprintf(format, args...))
}

// api lists the package's exported API.
func (p *pkg) api() []string {
	l := &lister{p: p, self: p.mod.importPath(p.rel)}
	for _, f := range p.files {
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				l.funcDecl(f, d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							l.typeSpec(f, s)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								l.value(p.values[n.Name])
							}
						}
					}
				}
			}
		}
	}
	return l.lines
}

func (l *lister) printer(f *file) *exprPrinter { return printerFor(l.p, f, l.self) }

func (l *lister) funcDecl(f *file, d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	if d.Recv == nil {
		pr := l.printer(f).withTypeParams(d.Type.TypeParams)
		l.add("func %s%s%s", d.Name.Name, pr.typeParams(d.Type.TypeParams), pr.signature(d.Type))
		return
	}
	base, ptr, names := recvBase(d.Recv)
	td := l.p.types[base]
	if !token.IsExported(base) || td == nil {
		return // methods of unexported types are not API, promoted ones aside
	}
	// Print the receiver's type parameters as the type declares them, so
	// that renaming them in a method is no change.
	pr := l.printer(f)
	declared := tparamNames(td.spec.TypeParams)
	if len(names) > 0 && len(names) == len(declared) {
		pr.rename = map[string]string{}
		for i, n := range names {
			if n != "_" {
				pr.rename[n] = declared[i]
			}
		}
	}
	pr = pr.withTypeParams(td.spec.TypeParams)
	l.add("method (%s) %s%s", recvString(base, ptr, declared), d.Name.Name, pr.signature(d.Type))
}

func tparamNames(tps *ast.FieldList) []string {
	if tps == nil {
		return nil
	}
	var names []string
	for _, fld := range tps.List {
		for _, n := range fld.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

// recvString prints a receiver type: "*Supervisor[C]".
func recvString(base string, ptr bool, tparams []string) string {
	s := base
	if len(tparams) > 0 {
		s += "[" + strings.Join(tparams, ", ") + "]"
	}
	if ptr {
		s = "*" + s
	}
	return s
}

func (l *lister) typeSpec(f *file, ts *ast.TypeSpec) {
	pr := l.printer(f).withTypeParams(ts.TypeParams)
	head := "type " + ts.Name.Name + pr.typeParams(ts.TypeParams)
	if ts.Assign.IsValid() {
		l.add("%s = %s", head, pr.expr(ts.Type))
		return
	}
	switch t := ts.Type.(type) {
	case *ast.StructType:
		l.add("%s struct", head)
		s := &structLister{l: l, head: head + " struct", outer: ts, seen: map[string]bool{ts.Name.Name: true}}
		s.own(f, t)
	case *ast.InterfaceType:
		l.add("%s interface", head)
		il := &ifaceLister{l: l, head: head + " interface", seen: map[string]bool{ts.Name.Name: true}}
		il.members(f, t)
		if il.unexported {
			l.add("%s, unexported methods", il.head)
		}
	default:
		l.add("%s %s", head, pr.expr(ts.Type))
	}
}

// structLister lists the fields of a struct type: its exported fields, its
// embedded exported types, and what it gets from embedding unexported
// types of its package (their exported fields and methods, promoted).
type structLister struct {
	l     *lister
	head  string // "type Config struct"
	outer *ast.TypeSpec
	seen  map[string]bool // unexported types already walked
	names map[string]bool // field and method names at shallower depths
}

func (s *structLister) own(f *file, st *ast.StructType) {
	s.names = map[string]bool{}
	for _, fld := range st.Fields.List {
		for _, n := range fld.Names {
			s.names[n.Name] = true
		}
		if len(fld.Names) == 0 {
			s.names[embeddedName(fld.Type)] = true
		}
	}
	for _, m := range s.l.p.methods[s.outer.Name.Name] {
		s.names[m.decl.Name.Name] = true
	}
	s.fields(f, st, false, 0)
}

// fields lists st's fields; viaPtr reports an embedding by pointer on the
// way from the outer type, depth how many embeddings deep st is.
func (s *structLister) fields(f *file, st *ast.StructType, viaPtr bool, depth int) {
	pr := s.l.printer(f).withTypeParams(s.outer.TypeParams)
	for _, fld := range st.Fields.List {
		if len(fld.Names) > 0 {
			t := pr.expr(fld.Type)
			for _, n := range fld.Names {
				if n.IsExported() && (depth == 0 || !s.names[n.Name]) {
					s.l.add("%s, %s %s", s.head, n.Name, t)
				}
			}
			continue
		}
		name := embeddedName(fld.Type)
		if depth > 0 && s.names[name] {
			continue
		}
		if token.IsExported(name) || isQualified(fld.Type) {
			s.l.add("%s, embedded %s", s.head, pr.expr(fld.Type))
			continue
		}
		s.promote(name, viaPtr || isPointer(fld.Type), depth+1)
	}
}

// promote lists what the outer type gets from embedding unexported type
// name of the package.
func (s *structLister) promote(name string, viaPtr bool, depth int) {
	td := s.l.p.types[name]
	if td == nil || s.seen[name] || depth > maxDepth {
		return
	}
	s.seen[name] = true
	defer delete(s.seen, name)
	outer := s.outer.Name.Name
	declared := tparamNames(s.outer.TypeParams)
	for _, m := range s.l.p.methods[name] {
		mn := m.decl.Name.Name
		if !token.IsExported(mn) || s.names[mn] {
			continue
		}
		_, ptr, _ := recvBase(m.decl.Recv)
		pr := s.l.printer(m.f).withTypeParams(s.outer.TypeParams)
		s.l.add("method (%s) %s%s", recvString(outer, ptr && !viaPtr, declared), mn, pr.signature(m.decl.Type))
	}
	switch t := td.spec.Type.(type) {
	case *ast.StructType:
		s.fields(td.f, t, viaPtr, depth)
	case *ast.InterfaceType:
		il := &ifaceLister{l: s.l, seen: map[string]bool{name: true}}
		for _, mm := range il.methodsOf(td.f, t) {
			if !s.names[mm.name] {
				s.l.add("method (%s) %s%s", recvString(outer, false, declared), mm.name, mm.sig)
			}
		}
	}
}

// embeddedName is the field name of an embedded field: its type name.
func embeddedName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func isQualified(t ast.Expr) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.SelectorExpr:
			return true
		default:
			return false
		}
	}
}

func isPointer(t ast.Expr) bool {
	_, ok := unparen(t).(*ast.StarExpr)
	return ok
}

// ifaceLister lists the members of an interface type: exported methods,
// embedded exported interfaces, the methods of embedded unexported ones
// (promoted), type-set elements (~int | ~string), and whether there are
// unexported methods (which keep other packages from implementing it).
type ifaceLister struct {
	l          *lister
	head       string
	seen       map[string]bool
	unexported bool
}

type ifaceMethod struct{ name, sig string }

func (il *ifaceLister) members(f *file, it *ast.InterfaceType) {
	pr := il.l.printer(f)
	for _, fld := range it.Methods.List {
		if ft, ok := fld.Type.(*ast.FuncType); ok && len(fld.Names) > 0 {
			for _, n := range fld.Names {
				if n.IsExported() {
					il.l.add("%s, %s%s", il.head, n.Name, pr.signature(ft))
				} else {
					il.unexported = true
				}
			}
			continue
		}
		name := embeddedName(fld.Type)
		if token.IsExported(name) || isQualified(fld.Type) {
			il.l.add("%s, embedded %s", il.head, pr.expr(fld.Type))
			continue
		}
		if td := il.l.p.types[name]; td != nil && !il.seen[name] {
			if inner, ok := td.spec.Type.(*ast.InterfaceType); ok {
				il.seen[name] = true
				il.members(td.f, inner)
				delete(il.seen, name)
				continue
			}
		}
		il.l.add("%s, %s", il.head, pr.expr(fld.Type)) // a type-set element
	}
}

// methodsOf returns the exported methods of an interface type, those of
// embedded unexported interfaces of the package included.
func (il *ifaceLister) methodsOf(f *file, it *ast.InterfaceType) []ifaceMethod {
	pr := il.l.printer(f)
	var out []ifaceMethod
	for _, fld := range it.Methods.List {
		if ft, ok := fld.Type.(*ast.FuncType); ok && len(fld.Names) > 0 {
			for _, n := range fld.Names {
				if n.IsExported() {
					out = append(out, ifaceMethod{n.Name, pr.signature(ft)})
				}
			}
			continue
		}
		name := embeddedName(fld.Type)
		if td := il.l.p.types[name]; td != nil && !isQualified(fld.Type) && !il.seen[name] {
			if inner, ok := td.spec.Type.(*ast.InterfaceType); ok {
				il.seen[name] = true
				out = append(out, il.methodsOf(td.f, inner)...)
				delete(il.seen, name)
			}
		}
	}
	return out
}

// value lists a const ("const Name Type = value") or a var ("var Name
// Type"; "var Name = expr" when its type cannot be told without type
// checking).
func (l *lister) value(v *value) {
	if v == nil {
		return
	}
	pr := l.printer(v.f)
	if v.isConst {
		typ := ""
		if v.typ != nil {
			typ = " " + pr.expr(v.typ)
		}
		if v.val == nil {
			l.add("const %s%s", v.name, typ)
			return
		}
		l.add("const %s%s = %s", v.name, typ, pr.constValue(v))
		return
	}
	if t, _, ok := valueType(l.p, v, l.self, 0); ok {
		l.add("var %s %s", v.name, t)
		return
	}
	if v.multi {
		l.add("var %s = %s[%d]", v.name, pr.expr(v.val), v.idx)
		return
	}
	l.add("var %s = %s", v.name, pr.expr(v.val))
}
