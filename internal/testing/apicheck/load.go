package apicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// listed is one public package of the module, type-checked.
type listed struct {
	label string // directory relative to the module root; the module path for the root
	pkg   *types.Package
}

// goPackage is what `go list -json` says of a package.
type goPackage struct {
	ImportPath, Name, Export string
	Module                   *struct{ Path string }
	Error                    *struct{ Err string }
}

// load returns the module's public packages, read from the compiler's
// export data for GOOS=linux, GOARCH=amd64 (the same listing on every
// machine). The go command chooses the files and directories: it leaves
// out testdata, hidden and _ directories, nested modules and files for
// other systems; load leaves out main packages and everything under a
// directory named internal, examples or vendor.
func load(root string) ([]listed, error) {
	all, err := goList(root, "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []goPackage
	for _, p := range all {
		if p.Name != "main" && p.Module != nil && public(p.ImportPath, p.Module.Path) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = p.ImportPath
	}
	// -export compiles what is not in the build cache yet; go vet and go
	// build fill it with the same entries.
	deps, err := goList(root, append([]string{"-export", "-deps"}, paths...)...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for _, p := range deps {
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	out := make([]listed, len(pkgs))
	for i, p := range pkgs {
		tp, err := imp.Import(p.ImportPath)
		if err != nil {
			return nil, fmt.Errorf("apicheck: %w", err)
		}
		label := p.Module.Path
		if p.ImportPath != label {
			label = strings.TrimPrefix(p.ImportPath, label+"/")
		}
		out[i] = listed{label, tp}
	}
	return out, nil
}

// public reports whether a package of module mod is listed.
func public(importPath, mod string) bool {
	elems := strings.Split(strings.TrimPrefix(importPath, mod), "/")
	return !slices.ContainsFunc(elems, func(e string) bool { return e == "internal" || e == "examples" || e == "vendor" })
}

// goList runs `go list -e -json` with args in dir and fails on any
// package's error (a file that does not compile, say).
func goList(dir string, args ...string) ([]goPackage, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-json=ImportPath,Name,Export,Module,Error"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("apicheck: go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []goPackage
	var errs []error
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("apicheck: go list: %w", err)
		}
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("apicheck: %s: %s", p.ImportPath, p.Error.Err))
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, errors.Join(errs...)
}
