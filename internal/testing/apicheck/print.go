package apicheck

import (
	"fmt"
	"go/constant"
	"go/types"
	"strconv"
	"strings"
)

// lister collects the lines of one package.
type lister struct {
	label  string
	pkg    *types.Package
	lines  []string
	rename map[*types.TypeParam]string // a method's receiver type parameters, as the type declares them
}

func (l *lister) add(format string, args ...any) {
	l.lines = append(l.lines, "pkg "+l.label+", "+fmt.Sprintf(format, args...))
}

// list lists the exported API of p.
func list(p listed) []string {
	l := &lister{label: p.label, pkg: p.pkg}
	scope := p.pkg.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Const:
			if obj.Exported() {
				l.add("const %s%s = %s", name, l.constType(obj.Type()), l.constValue(obj))
			}
		case *types.Var:
			if obj.Exported() {
				l.add("var %s %s", name, l.typ(obj.Type()))
			}
		case *types.Func:
			if obj.Exported() {
				sig := obj.Signature()
				l.add("func %s%s%s", name, l.typeParams(sig.TypeParams()), l.sig(sig))
			}
		case *types.TypeName:
			if obj.Exported() {
				l.typeName(obj)
			}
		}
	}
	return l.lines
}

func (l *lister) constType(t types.Type) string {
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return ""
	}
	return " " + l.typ(t)
}

// constValue is the constant's exact value; a time.Duration's in the
// largest unit that divides it ("30 * time.Second").
func (l *lister) constValue(c *types.Const) string {
	v := c.Val()
	if n, ok := c.Type().(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
		if d, exact := constant.Int64Val(v); exact && d != 0 {
			for _, u := range []struct {
				name string
				ns   int64
			}{{"Hour", 3600e9}, {"Minute", 60e9}, {"Second", 1e9}, {"Millisecond", 1e6}, {"Microsecond", 1e3}, {"Nanosecond", 1}} {
				switch {
				case d == u.ns:
					return "time." + u.name
				case d%u.ns == 0:
					return strconv.FormatInt(d/u.ns, 10) + " * time." + u.name
				}
			}
		}
	}
	if v.Kind() == constant.Float {
		if f, exact := constant.Float64Val(v); exact {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return v.ExactString()
}

// typeName lists a type: its line, then its fields, interface members or
// methods.
func (l *lister) typeName(tn *types.TypeName) {
	head := "type " + tn.Name()
	if a, ok := tn.Type().(*types.Alias); ok {
		l.add("%s%s = %s", head, l.typeParams(a.TypeParams()), l.typ(a.Rhs()))
		return
	}
	named := tn.Type().(*types.Named)
	head += l.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Interface:
		l.add("%s interface", head)
		if l.members(head+" interface", u) {
			l.add("%s interface, unexported methods", head)
		}
		return
	case *types.Struct:
		l.add("%s struct", head)
		l.fields(head+" struct", named, u, 0)
	default:
		l.add("%s %s", head, l.typ(u))
	}
	l.methods(named)
}

// fields lists the exported fields of st, a struct type of named or one
// embedded in it unexported, whose fields are promoted: those that a
// selector on named reaches.
func (l *lister) fields(head string, named *types.Named, st *types.Struct, depth int) {
	reached := func(f *types.Var) bool { // not shadowed, not ambiguous
		if depth == 0 {
			return true
		}
		obj, _, _ := types.LookupFieldOrMethod(named, true, l.pkg, f.Name())
		return obj == f
	}
	for f := range st.Fields() {
		switch {
		case f.Embedded() && !f.Exported():
			if inner := structOf(f.Type()); inner != nil && depth < 16 {
				l.fields(head, named, inner, depth+1)
			}
		case f.Embedded() && reached(f):
			l.add("%s, embedded %s", head, l.typ(f.Type()))
		case f.Exported() && reached(f):
			l.add("%s, %s %s", head, f.Name(), l.typ(f.Type()))
		}
	}
}

// methods lists the exported methods of named: its own and those promoted
// from types it embeds unexported. A method whose receiver is a pointer
// is listed on *T unless an embedded pointer makes it T's.
func (l *lister) methods(named *types.Named) {
	values := types.NewMethodSet(named)
	all := types.NewMethodSet(types.NewPointer(named))
	for sel := range all.Methods() {
		m := sel.Obj().(*types.Func)
		if !m.Exported() || viaExported(named, sel.Index()) {
			continue
		}
		recv := named.Obj().Name()
		if tps := named.TypeParams(); tps.Len() > 0 {
			names := make([]string, tps.Len())
			for i := range names {
				names[i] = tps.At(i).Obj().Name()
			}
			recv += "[" + strings.Join(names, ", ") + "]"
		}
		if values.Lookup(m.Pkg(), m.Name()) == nil {
			recv = "*" + recv
		}
		sig := m.Signature()
		if len(sel.Index()) > 1 { // promoted: as instantiated in named (a generic embedded type)
			sig = sel.Type().(*types.Signature)
		}
		l.rename = map[*types.TypeParam]string{}
		for i := range min(sig.RecvTypeParams().Len(), named.TypeParams().Len()) {
			l.rename[sig.RecvTypeParams().At(i)] = named.TypeParams().At(i).Obj().Name()
		}
		l.add("method (%s) %s%s", recv, m.Name(), l.sig(sig))
		l.rename = nil
	}
}

// viaExported reports whether a selection's path of embedded fields goes
// through an exported one: that type's methods are its own API.
func viaExported(t types.Type, path []int) bool {
	for _, i := range path[:len(path)-1] {
		f := structOf(t).Field(i)
		if f.Exported() {
			return true
		}
		t = f.Type()
	}
	return false
}

func structOf(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

// members lists an interface's exported methods, its embedded exported
// interfaces, the members of embedded unexported interfaces of the
// package, and type-set elements. It reports unexported methods.
func (l *lister) members(head string, it *types.Interface) (unexported bool) {
	for m := range it.ExplicitMethods() {
		if m.Exported() {
			l.add("%s, %s%s", head, m.Name(), l.sig(m.Signature()))
		} else {
			unexported = true
		}
	}
	for e := range it.EmbeddedTypes() {
		switch n, _ := e.(interface{ Obj() *types.TypeName }); {
		case n == nil:
			l.add("%s, %s", head, l.typ(e)) // a type-set element
		case !n.Obj().Exported() && n.Obj().Pkg() == l.pkg:
			if inner, ok := e.Underlying().(*types.Interface); ok {
				unexported = l.members(head, inner) || unexported
			}
		default:
			l.add("%s, embedded %s", head, l.typ(e))
		}
	}
	return unexported
}

// typeParams prints a type parameter list: "[K comparable, V any]".
func (l *lister) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range parts {
		tp := tps.At(i)
		parts[i] = l.typ(tp) + " " + l.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// sig prints "(params) results", without names.
func (l *lister) sig(s *types.Signature) string {
	params := l.tuple(s.Params())
	if s.Variadic() {
		last := s.Params().At(s.Params().Len() - 1).Type().(*types.Slice)
		params[len(params)-1] = "..." + l.typ(last.Elem())
	}
	out := "(" + strings.Join(params, ", ") + ")"
	switch rs := l.tuple(s.Results()); len(rs) {
	case 0:
	case 1:
		out += " " + rs[0]
	default:
		out += " (" + strings.Join(rs, ", ") + ")"
	}
	return out
}

func (l *lister) tuple(t *types.Tuple) []string {
	var out []string
	for v := range t.Variables() {
		out = append(out, l.typ(v.Type()))
	}
	return out
}

// typ prints a type as types.TypeString does, but with parameter names
// dropped, packages named by their package clause and the listed
// package unqualified.
func (l *lister) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Basic:
		return t.Name()
	case *types.Pointer:
		return "*" + l.typ(t.Elem())
	case *types.Slice:
		return "[]" + l.typ(t.Elem())
	case *types.Array:
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + l.typ(t.Elem())
	case *types.Map:
		return "map[" + l.typ(t.Key()) + "]" + l.typ(t.Elem())
	case *types.Chan:
		elem := l.typ(t.Elem())
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + elem
		case types.RecvOnly:
			return "<-chan " + elem
		}
		if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
			elem = "(" + elem + ")"
		}
		return "chan " + elem
	case *types.Signature:
		return "func" + l.sig(t)
	case *types.Struct:
		var parts []string
		for i := range t.NumFields() {
			f, s := t.Field(i), l.typ(t.Field(i).Type())
			if !f.Embedded() {
				s = f.Name() + " " + s
			}
			if tag := t.Tag(i); tag != "" {
				s += " " + strconv.Quote(tag)
			}
			parts = append(parts, s)
		}
		return "struct{" + strings.Join(parts, "; ") + "}"
	case *types.Interface:
		if t.IsImplicit() { // [T ~int | ~string]
			return l.typ(t.EmbeddedType(0))
		}
		var parts []string
		for m := range t.ExplicitMethods() {
			parts = append(parts, m.Name()+l.sig(m.Signature()))
		}
		for e := range t.EmbeddedTypes() {
			parts = append(parts, l.typ(e))
		}
		return "interface{" + strings.Join(parts, "; ") + "}"
	case *types.Union:
		terms := make([]string, t.Len())
		for i := range terms {
			terms[i] = l.typ(t.Term(i).Type())
			if t.Term(i).Tilde() {
				terms[i] = "~" + terms[i]
			}
		}
		return strings.Join(terms, " | ")
	case *types.TypeParam:
		if name, ok := l.rename[t]; ok {
			return name
		}
		return t.Obj().Name()
	case *types.Named:
		return l.qualified(t.Obj()) + l.typeArgs(t.TypeArgs())
	case *types.Alias:
		return l.qualified(t.Obj()) + l.typeArgs(t.TypeArgs())
	}
	return types.TypeString(t, nil)
}

func (l *lister) qualified(obj *types.TypeName) string {
	if obj.Pkg() == nil || obj.Pkg() == l.pkg {
		return obj.Name()
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

func (l *lister) typeArgs(args *types.TypeList) string {
	if args.Len() == 0 {
		return ""
	}
	parts := make([]string, args.Len())
	for i := range parts {
		parts[i] = l.typ(args.At(i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
