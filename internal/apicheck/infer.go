package apicheck

import (
	"go/ast"
	"go/token"
)

// typeOf tells the type of a var or const without type checking, for the
// common ways of writing one: a declared type; a literal (its default
// type); a composite literal, &T{...} or a conversion T(x); errors.New,
// fmt.Errorf and errors.Join (error); new and make; a func literal; a call
// of a function, or a reference to a var or const, of the same package or
// of another package of the module (which is parsed for it). Anything else
// gives ok false, and the listing shows the expression instead.
type inferer struct {
	q     *pkg   // package the expression is in
	f     *file  // file the expression is in
	self  string // import path of the listed package
	depth int
}

// valueType returns the type of v, a var or const of package q, printed
// for the listed package self. untyped reports an untyped constant
// expression, whose type is the default one.
func valueType(q *pkg, v *value, self string, depth int) (t string, untyped, ok bool) {
	if depth > maxDepth {
		return "", false, false
	}
	pr := printerFor(q, v.f, self)
	if v.typ != nil {
		return pr.expr(v.typ), false, true
	}
	if v.val == nil {
		return "", false, false
	}
	in := &inferer{q: q, f: v.f, self: self, depth: depth + 1}
	idx := -1
	if v.multi {
		idx = v.idx
	}
	return in.typeOf(v.val, idx)
}

func (in *inferer) printer() *exprPrinter { return printerFor(in.q, in.f, in.self) }

// typeOf returns the type of e, or of its idx'th result when idx >= 0.
func (in *inferer) typeOf(e ast.Expr, idx int) (t string, untyped, ok bool) {
	if idx >= 0 {
		call, isCall := unparen(e).(*ast.CallExpr)
		if !isCall {
			return "", false, false
		}
		rs, ok := in.results(call)
		if !ok || idx >= len(rs) {
			return "", false, false
		}
		return rs[idx], false, true
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return in.typeOf(x.X, -1)
	case *ast.BasicLit:
		switch x.Kind {
		case token.INT:
			return "int", true, true
		case token.FLOAT:
			return "float64", true, true
		case token.IMAG:
			return "complex128", true, true
		case token.CHAR:
			return "rune", true, true
		case token.STRING:
			return "string", true, true
		}
	case *ast.Ident:
		if v := in.q.values[x.Name]; v != nil {
			return valueType(in.q, v, in.self, in.depth)
		}
		if fd := in.q.funcs[x.Name]; fd != nil && fd.decl.Type.TypeParams == nil {
			return "func" + printerFor(in.q, fd.f, in.self).signature(fd.decl.Type), false, true
		}
		if x.Name == "true" || x.Name == "false" {
			return "bool", true, true
		}
	case *ast.SelectorExpr:
		if q, name, ok := in.imported(x); ok {
			if v := q.values[name]; v != nil {
				return valueType(q, v, in.self, in.depth)
			}
			if fd := q.funcs[name]; fd != nil && fd.decl.Type.TypeParams == nil {
				return "func" + printerFor(q, fd.f, in.self).signature(fd.decl.Type), false, true
			}
		}
	case *ast.CompositeLit:
		if x.Type != nil {
			return in.printer().expr(x.Type), false, true
		}
	case *ast.FuncLit:
		return in.printer().expr(x.Type), false, true
	case *ast.TypeAssertExpr:
		if x.Type != nil {
			return in.printer().expr(x.Type), false, true
		}
	case *ast.UnaryExpr:
		switch x.Op {
		case token.AND:
			if t, _, ok := in.typeOf(x.X, -1); ok {
				if _, lit := unparen(x.X).(*ast.CompositeLit); lit {
					return "*" + t, false, true
				}
			}
		case token.NOT:
			return "bool", false, true
		case token.ADD, token.SUB, token.XOR:
			return in.typeOf(x.X, -1)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return "bool", true, true
		case token.SHL, token.SHR:
			return in.typeOf(x.X, -1)
		}
		tx, ux, okx := in.typeOf(x.X, -1)
		ty, uy, oky := in.typeOf(x.Y, -1)
		switch {
		case okx && !ux:
			return tx, false, true
		case oky && !uy:
			return ty, false, true
		case okx && oky:
			return widest(tx, ty), true, true
		}
	case *ast.CallExpr:
		if rs, ok := in.results(x); ok && len(rs) == 1 {
			return rs[0], false, true
		}
	}
	return "", false, false
}

// widest returns the default type of an untyped expression mixing kinds.
func widest(a, b string) string {
	rank := map[string]int{"int": 1, "rune": 2, "float64": 3, "complex128": 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// results returns the types of the results of a call or conversion.
func (in *inferer) results(call *ast.CallExpr) ([]string, bool) {
	pr := in.printer()
	switch fun := unparen(call.Fun).(type) {
	case *ast.Ident:
		if _, local := in.q.types[fun.Name]; local {
			return []string{pr.expr(fun)}, true // a conversion
		}
		if fd := in.q.funcs[fun.Name]; fd != nil {
			return funcResults(in.q, fd, in.self)
		}
		if in.q.declares(fun.Name) {
			return nil, false
		}
		switch fun.Name {
		case "new":
			if len(call.Args) == 1 {
				return []string{"*" + pr.expr(call.Args[0])}, true
			}
		case "make":
			if len(call.Args) > 0 {
				return []string{pr.expr(call.Args[0])}, true
			}
		case "len", "cap", "copy":
			return []string{"int"}, true
		case "append", "min", "max":
			if len(call.Args) > 0 {
				if t, _, ok := in.typeOf(call.Args[0], -1); ok {
					return []string{t}, true
				}
			}
		case "real", "imag":
			return []string{"float64"}, true
		case "complex":
			return []string{"complex128"}, true
		}
		if isTypeName(fun.Name) {
			return []string{fun.Name}, true // a conversion to a predeclared type
		}
	case *ast.SelectorExpr:
		id, _ := fun.X.(*ast.Ident)
		if id == nil {
			return nil, false
		}
		ip, ok := in.f.imports[id.Name]
		if !ok {
			return nil, false
		}
		switch ip + "." + fun.Sel.Name {
		case "errors.New", "errors.Join", "fmt.Errorf":
			return []string{"error"}, true
		}
		if q := in.q.mod.loadImport(ip); q != nil {
			if _, isType := q.types[fun.Sel.Name]; isType {
				return []string{pr.expr(fun)}, true
			}
			if fd := q.funcs[fun.Sel.Name]; fd != nil {
				return funcResults(q, fd, in.self)
			}
		}
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.StarExpr, *ast.InterfaceType:
		return []string{pr.expr(fun)}, true // a conversion
	}
	return nil, false
}

// isTypeName reports whether name is a predeclared type usable in a
// conversion.
func isTypeName(name string) bool {
	switch name {
	case "any", "comparable", "iota", "true", "false", "nil":
		return false
	}
	return predeclared[name] && !isBuiltinFunc(name)
}

func isBuiltinFunc(name string) bool {
	switch name {
	case "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
		"make", "max", "min", "new", "panic", "print", "println", "real", "recover":
		return true
	}
	return false
}

// funcResults returns the result types of a non-generic function.
func funcResults(q *pkg, fd *funcDecl, self string) ([]string, bool) {
	if fd.decl.Type.TypeParams != nil {
		return nil, false
	}
	return printerFor(q, fd.f, self).types(fd.decl.Type.Results), true
}

// imported resolves pkg.Name to a package of this module.
func (in *inferer) imported(x *ast.SelectorExpr) (*pkg, string, bool) {
	id, ok := x.X.(*ast.Ident)
	if !ok {
		return nil, "", false
	}
	ip, ok := in.f.imports[id.Name]
	if !ok {
		return nil, "", false
	}
	q := in.q.mod.loadImport(ip)
	return q, x.Sel.Name, q != nil
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
