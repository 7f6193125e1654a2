package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// plot writes one panel per strategy, stacked, sharing the time axis (the
// first 3x the ideal finish) and a logarithmic count axis (1 to 10^k):
// attempts per window as a filled curve, the server's capacity per window
// as a dashed line, the moment the server is back as a green line.
func plot(w io.Writer, s scenario, rs []result) error {
	const (
		width, panelH, left, top, gap = 900, 100, 170, 30, 16
	)
	end := int(3 * s.ideal() / s.Window)
	plotW := float64(width - left - 20)
	x := func(win int) float64 { return float64(left) + plotW*float64(win)/float64(end) }
	capacity := float64(s.Rate) * s.Window.Seconds()
	peak := 1
	for _, r := range rs {
		for _, n := range r.Hist {
			peak = max(peak, n)
		}
	}
	decades := math.Ceil(math.Log10(float64(peak)))

	var b strings.Builder
	height := top + len(rs)*(panelH+gap) + 30
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Attempts per %v window (log scale): %d clients, server down %v, then %d/s; dashed: capacity</text>`+"\n",
		8, s.Window, s.N, s.Down, s.Rate)
	for i, r := range rs {
		y0 := top + i*(panelH+gap)
		y := func(n float64) float64 { // log10(1+n), so 0 sits on the axis
			return float64(y0+panelH) - float64(panelH)*math.Log10(1+n)/decades
		}
		rowPeak := 0
		for _, n := range r.Hist {
			rowPeak = max(rowPeak, n)
		}
		fmt.Fprintf(&b, `<text x="8" y="%d">%s</text><text x="8" y="%d" fill="#666">peak %d</text>`+"\n", y0+panelH/2, r.Name, y0+panelH/2+16, rowPeak)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%d" fill="none" stroke="#ccc"/>`+"\n", left, y0, plotW, panelH)
		for d := 1.0; d <= decades; d++ {
			gy := y(math.Pow(10, d) - 1)
			fmt.Fprintf(&b, `<line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end" font-size="9" fill="#999">%.0f</text>`+"\n",
				left, float64(left)+plotW, gy, gy, left-3, gy+3, math.Pow(10, d))
		}
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%.1f ", x(0), y(0))
		last := min(end, len(r.Hist))
		for win := range last {
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", x(win), y(float64(r.Hist[win])), x(win+1), y(float64(r.Hist[win])))
		}
		fmt.Fprintf(&pts, "%.1f,%.1f", x(last), y(0))
		fmt.Fprintf(&b, `<polygon points="%s" fill="#3b6ea8" fill-opacity="0.85"/>`+"\n", pts.String())
		fmt.Fprintf(&b, `<line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#d33" stroke-dasharray="4 3"/>`+"\n", left, float64(left)+plotW, y(capacity), y(capacity))
		up := x(int(s.Down / s.Window))
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#2a2"/>`+"\n", up, up, y0, y0+panelH)
	}
	axisY := top + len(rs)*(panelH+gap)
	for sec := 0; sec <= int(time.Duration(end)*s.Window/time.Second); sec += tick(end, s.Window) {
		px := x(int(time.Duration(sec) * time.Second / s.Window))
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%ds</text>`+"\n", px, axisY+4, sec)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// tick picks a label spacing in seconds for about ten labels.
func tick(windows int, win time.Duration) int {
	total := int(time.Duration(windows) * win / time.Second)
	for _, t := range []int{5, 10, 15, 30, 60, 120, 300} {
		if total/t <= 10 {
			return t
		}
	}
	return 600
}
