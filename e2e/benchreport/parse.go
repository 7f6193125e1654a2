package main

import (
	"bufio"
	"sort"
	"strconv"
	"strings"
)

// sample is one benchmark result line: its name (without the -GOMAXPROCS
// suffix) and every "value unit" pair on it.
type sample struct {
	name    string
	metrics map[string]float64
}

// parse reads `go test -bench` output.
func parse(out string) []sample {
	var ss []sample
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		s := sample{name: name, metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				s.metrics[f[i+1]] = v
			}
		}
		ss = append(ss, s)
	}
	return ss
}

// median returns the median of metric unit over the samples named name,
// and how many there were.
func median(ss []sample, name, unit string) (float64, int) {
	var vs []float64
	for _, s := range ss {
		if v, ok := s.metrics[unit]; ok && s.name == name {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, 0
	}
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], len(vs)
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, len(vs)
}

// values returns metric unit of the samples named name, in the order they
// ran: with -count, the i-th of two names ran in the same round.
func values(ss []sample, name, unit string) []float64 {
	var vs []float64
	for _, s := range ss {
		if v, ok := s.metrics[unit]; ok && s.name == name {
			vs = append(vs, v)
		}
	}
	return vs
}

// medianOf returns the median of vs, 0 for none.
func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	vs = append([]float64(nil), vs...)
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// pairedRatio returns the median over rounds of a's value over b's: the
// two ran side by side in each round, so the machine's drift between
// rounds cancels out.
func pairedRatio(ss []sample, a, b, unit string) float64 {
	va, vb := values(ss, a, unit), values(ss, b, unit)
	var rs []float64
	for i := range min(len(va), len(vb)) {
		if vb[i] != 0 {
			rs = append(rs, va[i]/vb[i])
		}
	}
	return medianOf(rs)
}
