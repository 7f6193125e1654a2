package main

// measures are the figures of one result.
type measures struct {
	peak        int     // attempts in the busiest window
	peakToMean  float64 // peak / mean attempts per window until the last client was back
	peakAfterUp float64 // attempts in the busiest window once the server is up
	finishRatio float64 // last client back / ideal finish
	beyondCap   int     // attempts beyond the capacity per window, summed over the windows once the server is up
	peakAdmits  int     // connections taken in the busiest window
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
	for _, n := range r.Admits {
		m.peakAdmits = max(m.peakAdmits, n)
	}
	if windows := len(r.Hist); windows > 0 {
		m.peakToMean = float64(m.peak) / (float64(r.Attempts) / float64(windows))
	}
	if r.Left == 0 {
		m.finishRatio = float64(r.LastConnected) / float64(s.ideal())
	}
	return m
}
