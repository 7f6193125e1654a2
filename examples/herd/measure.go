package main

import "fmt"

// measures are the figures of one result.
type measures struct {
	peak        int     // attempts in the busiest window
	peakToMean  float64 // peak / mean attempts per window until the last client was back
	peakAfterUp float64 // attempts in the busiest window once the server is up
	finishRatio float64 // last client back / ideal finish
	beyondCap   int     // attempts beyond the capacity per window, summed over the windows once the server is up
}

func measure(s scenario, r result) measures {
	var m measures
	upWindow := int(s.Down / s.Window)
	for i, n := range r.Hist {
		m.peak = max(m.peak, n)
		if i >= upWindow {
			m.peakAfterUp = max(m.peakAfterUp, float64(n))
			m.beyondCap += max(0, n-int(float64(s.Rate)*s.Window.Seconds()))
		}
	}
	if windows := len(r.Hist); windows > 0 {
		m.peakToMean = float64(m.peak) / (float64(r.Attempts) / float64(windows))
	}
	if r.Left == 0 {
		m.finishRatio = float64(r.LastConnected) / float64(s.ideal())
	}
	return m
}

// targets checks the targets for the default run and says which
// were met, with the figures.
func targets(s scenario, rs []result) []string {
	by := map[string]measures{}
	left := map[string]int{}
	for _, r := range rs {
		by[r.Name] = measure(s, r)
		left[r.Name] = r.Left
	}
	capacity := float64(s.Rate) * s.Window.Seconds()
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	nj, rp := by["no jitter"], by["redial policy"]
	var out []string
	out = append(out, fmt.Sprintf("target: redial policy peak <= 1/10 of no jitter's: %s (%d vs %d, %.3fx)",
		verdict(rp.peak*10 <= nj.peak), rp.peak, nj.peak, float64(rp.peak)/float64(nj.peak)))
	out = append(out, fmt.Sprintf("target: redial policy after recovery <= 2x capacity per window: %s (%.2fx)",
		verdict(rp.peakAfterUp <= 2*capacity), rp.peakAfterUp/capacity))
	for _, name := range []string{"redial + hints", "redial + planned hints"} {
		h := by[name]
		out = append(out, fmt.Sprintf("target: %s, last client back <= 1.2x ideal (%v): %s (%.2fx)",
			name, s.ideal(), verdict(left[name] == 0 && h.finishRatio <= 1.2), h.finishRatio))
		out = append(out, fmt.Sprintf("target: %s, after recovery <= 1.2x capacity per window: %s (%.2fx)",
			name, verdict(h.peakAfterUp <= 1.2*capacity), h.peakAfterUp/capacity))
	}
	return out
}
