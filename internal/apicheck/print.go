package apicheck

import (
	"bytes"
	"go/ast"
	"go/constant"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
)

// exprPrinter renders types and constant expressions on one line.
//
// A type is printed with its parameter and result names dropped (renaming
// a parameter is not an API change), type parameters one by one
// ([K comparable, V any], however they were grouped), and qualifiers
// normalized: a package is named by Module.displayName whatever the file
// imported it as. Declarations of another package of the module (an
// internal one that a var's type was inferred from) are printed qualified.
type exprPrinter struct {
	p       *pkg   // package the printed node belongs to
	f       *file  // file the printed node is in
	self    string // import path of the package being listed
	qual    string // when p is not the listed package: its qualifier
	rename  map[string]string
	tparams map[string]bool // type parameters in scope
	konst   bool            // printing a const value
	bare    bool            // the const value is one reference: inline it unparenthesized
	iota    int
	depth   int
}

// predeclared are the identifiers of the universe block that name types or
// values a declaration can mention; they are never qualified.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true,
	"complex128": true, "error": true, "float32": true, "float64": true, "int": true,
	"int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "true": true, "false": true, "nil": true,
	"iota": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true,
	"make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// printerFor returns a printer for nodes of file f of package q, listed as
// part of the package with import path self.
func printerFor(q *pkg, f *file, self string) *exprPrinter {
	pr := &exprPrinter{p: q, f: f, self: self, iota: -1}
	if ip := q.mod.importPath(q.rel); ip != self {
		pr.qual = q.mod.displayName(ip)
	}
	return pr
}

// withTypeParams returns a copy of pr with the names of tps in scope.
func (pr *exprPrinter) withTypeParams(tps *ast.FieldList) *exprPrinter {
	if tps == nil || len(tps.List) == 0 {
		return pr
	}
	c := *pr
	c.tparams = map[string]bool{}
	for k := range pr.tparams {
		c.tparams[k] = true
	}
	for _, fld := range tps.List {
		for _, n := range fld.Names {
			c.tparams[n.Name] = true
		}
	}
	return &c
}

// typeParams prints a type parameter list: "[K comparable, V any]", or ""
// for none.
func (pr *exprPrinter) typeParams(tps *ast.FieldList) string {
	if tps == nil || len(tps.List) == 0 {
		return ""
	}
	var parts []string
	for _, fld := range tps.List {
		c := pr.expr(fld.Type)
		for _, n := range fld.Names {
			parts = append(parts, pr.ident(n.Name)+" "+c)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// types prints the types of a parameter or result list, one per name.
func (pr *exprPrinter) types(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, fld := range fl.List {
		t := pr.expr(fld.Type)
		n := len(fld.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			out = append(out, t)
		}
	}
	return out
}

// signature prints "(params) results" without names.
func (pr *exprPrinter) signature(ft *ast.FuncType) string {
	s := "(" + strings.Join(pr.types(ft.Params), ", ") + ")"
	switch rs := pr.types(ft.Results); len(rs) {
	case 0:
	case 1:
		s += " " + rs[0]
	default:
		s += " (" + strings.Join(rs, ", ") + ")"
	}
	return s
}

func (pr *exprPrinter) ident(name string) string {
	if r, ok := pr.rename[name]; ok {
		return r
	}
	return name
}

// expr prints a type or value expression.
func (pr *exprPrinter) expr(e ast.Expr) string {
	switch x := e.(type) {
	case nil:
		return ""
	case *ast.Ident:
		return pr.identExpr(x.Name)
	case *ast.BasicLit:
		return x.Value
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if ip, ok := pr.f.imports[id.Name]; ok {
				return pr.qualified(ip, x.Sel.Name)
			}
		}
		return pr.expr(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + pr.expr(x.X)
	case *ast.ParenExpr:
		return "(" + pr.expr(x.X) + ")"
	case *ast.Ellipsis:
		return "..." + pr.expr(x.Elt)
	case *ast.ArrayType:
		if x.Len == nil {
			return "[]" + pr.expr(x.Elt)
		}
		return "[" + pr.expr(x.Len) + "]" + pr.expr(x.Elt)
	case *ast.MapType:
		return "map[" + pr.expr(x.Key) + "]" + pr.expr(x.Value)
	case *ast.ChanType:
		v := pr.expr(x.Value)
		switch x.Dir {
		case ast.SEND:
			return "chan<- " + v
		case ast.RECV:
			return "<-chan " + v
		}
		if c, ok := x.Value.(*ast.ChanType); ok && c.Dir == ast.RECV {
			v = "(" + v + ")"
		}
		return "chan " + v
	case *ast.FuncType:
		return "func" + pr.signature(x)
	case *ast.StructType:
		return "struct{" + strings.Join(pr.inlineFields(x.Fields), "; ") + "}"
	case *ast.InterfaceType:
		var parts []string
		for _, fld := range x.Methods.List {
			if ft, ok := fld.Type.(*ast.FuncType); ok && len(fld.Names) > 0 {
				for _, n := range fld.Names {
					parts = append(parts, n.Name+pr.signature(ft))
				}
				continue
			}
			parts = append(parts, pr.expr(fld.Type))
		}
		return "interface{" + strings.Join(parts, "; ") + "}"
	case *ast.IndexExpr:
		return pr.expr(x.X) + "[" + pr.expr(x.Index) + "]"
	case *ast.IndexListExpr:
		parts := make([]string, len(x.Indices))
		for i, ix := range x.Indices {
			parts[i] = pr.expr(ix)
		}
		return pr.expr(x.X) + "[" + strings.Join(parts, ", ") + "]"
	case *ast.UnaryExpr:
		return x.Op.String() + pr.expr(x.X)
	case *ast.BinaryExpr:
		return pr.expr(x.X) + " " + x.Op.String() + " " + pr.expr(x.Y)
	case *ast.CallExpr:
		parts := make([]string, len(x.Args))
		for i, a := range x.Args {
			parts[i] = pr.expr(a)
		}
		s := pr.expr(x.Fun) + "(" + strings.Join(parts, ", ")
		if x.Ellipsis.IsValid() {
			s += "..."
		}
		return s + ")"
	}
	// Composite literals, function literals and the like: as go/printer
	// has them, on one line.
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, token.NewFileSet(), e); err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(buf.String()), " ")
}

// inlineFields prints the fields of a struct type literal, names kept
// (they are part of the type): "A int", "B, C string" as "B string; C
// string", an embedded field as its type, a tag after the type.
func (pr *exprPrinter) inlineFields(fl *ast.FieldList) []string {
	var out []string
	for _, fld := range fl.List {
		t := pr.expr(fld.Type)
		if fld.Tag != nil {
			t += " " + fld.Tag.Value
		}
		if len(fld.Names) == 0 {
			out = append(out, t)
		}
		for _, n := range fld.Names {
			out = append(out, n.Name+" "+t)
		}
	}
	return out
}

func (pr *exprPrinter) identExpr(name string) string {
	if r, ok := pr.rename[name]; ok {
		return r
	}
	if pr.tparams[name] {
		return name
	}
	if pr.konst {
		if name == "iota" && pr.iota >= 0 {
			return strconv.Itoa(pr.iota)
		}
		if v := pr.p.values[name]; v != nil && v.isConst && pr.p.internal() && pr.depth < maxDepth {
			return pr.inlineConst(pr.p, v)
		}
	}
	if pr.qual != "" && !predeclared[name] && pr.p.declares(name) {
		return pr.qual + "." + name
	}
	return name
}

// qualified prints name of the package with import path ip. A constant of
// an internal package of the module is replaced by its value when printing
// a const, so that the listing shows what the value is.
func (pr *exprPrinter) qualified(ip, name string) string {
	if pr.konst && pr.depth < maxDepth {
		if q := pr.p.mod.loadImport(ip); q != nil && q.internal() {
			if v := q.values[name]; v != nil && v.isConst {
				return pr.inlineConst(q, v)
			}
		}
	}
	if ip == pr.self {
		return name
	}
	return pr.p.mod.displayName(ip) + "." + name
}

const maxDepth = 16

// inlineConst prints the value of constant v of package q in place of a
// reference to it: parenthesized unless it is one token or the whole value,
// converted to its type when it has one.
func (pr *exprPrinter) inlineConst(q *pkg, v *value) string {
	sub := printerFor(q, v.f, pr.self)
	sub.depth = pr.depth + 1
	s := sub.constValue(v)
	if v.typ != nil {
		return sub.expr(v.typ) + "(" + s + ")"
	}
	if !pr.bare && strings.ContainsAny(s, " ") {
		return "(" + s + ")"
	}
	return s
}

// constValue prints the value of a constant: its expression as written,
// iota replaced by its value (and the whole folded into one number when it
// is made of literals and iota only).
func (pr *exprPrinter) constValue(v *value) string {
	c := *pr
	c.konst, c.iota = true, v.iota
	switch unparen(v.val).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		c.bare = true
	}
	if usesIota(v.val) {
		if cv, ok := safeFold(v.val, v.iota); ok {
			return cv.ExactString()
		}
	}
	return c.expr(v.val)
}

func usesIota(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
			found = true
		}
		return !found
	})
	return found
}

// safeFold is fold, with go/constant's panics on invalid operations
// (a shift of a float, say) turned into a failure.
func safeFold(e ast.Expr, iota int) (v constant.Value, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	return fold(e, iota)
}

// fold evaluates a constant expression made of literals, iota, parentheses
// and operators.
func fold(e ast.Expr, iota int) (constant.Value, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(x.Value, x.Kind, 0)
		return v, v.Kind() != constant.Unknown
	case *ast.Ident:
		switch x.Name {
		case "iota":
			return constant.MakeInt64(int64(iota)), true
		case "true":
			return constant.MakeBool(true), true
		case "false":
			return constant.MakeBool(false), true
		}
	case *ast.ParenExpr:
		return fold(x.X, iota)
	case *ast.UnaryExpr:
		v, ok := fold(x.X, iota)
		if !ok {
			return nil, false
		}
		switch x.Op {
		case token.ADD, token.SUB, token.XOR, token.NOT:
			r := constant.UnaryOp(x.Op, v, 0)
			return r, r.Kind() != constant.Unknown
		}
	case *ast.BinaryExpr:
		a, ok1 := fold(x.X, iota)
		b, ok2 := fold(x.Y, iota)
		if !ok1 || !ok2 {
			return nil, false
		}
		switch x.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(b)
			if !ok || s > 1024 || a.Kind() != constant.Int {
				return nil, false
			}
			return constant.Shift(a, x.Op, uint(s)), true
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.MakeBool(constant.Compare(a, x.Op, b)), true
		case token.QUO:
			if constant.Sign(b) == 0 {
				return nil, false
			}
			if a.Kind() == constant.Int && b.Kind() == constant.Int {
				return constant.BinaryOp(a, token.QUO_ASSIGN, b), true // integer division
			}
		case token.REM:
			if constant.Sign(b) == 0 {
				return nil, false
			}
		}
		r := constant.BinaryOp(a, x.Op, b)
		return r, r.Kind() != constant.Unknown
	}
	return nil, false
}
