package main

import (
	"encoding/json"
	"io"
)

// row is one strategy's figures as -json prints them, for programs
// (e2e's benchreport puts them beside a real storm's).
type row struct {
	Name        string  `json:"name"`
	Peak        int     `json:"peak"`          // attempts in the busiest window
	PeakUp      int     `json:"peak_up"`       // the same, once the server is up: handshakes
	PeakUpOver  float64 `json:"peak_up_cap"`   // PeakUp over the capacity per window
	BeyondCap   int     `json:"beyond_cap"`    // attempts beyond capacity, summed over the windows once up
	Attempts    int     `json:"attempts"`      // all attempts
	Failed      int     `json:"failed"`        // all failed attempts
	FailedUp    int     `json:"failed_up"`     // failed once the server is up: handshakes refused
	LastBack    float64 `json:"last_back_s"`   // seconds from the loss until the last client is back; -1: not all
	FinishRatio float64 `json:"finish_ideal"`  // LastBack over the ideal finish
	Left        int     `json:"left"`          // clients not back at the horizon
	Early       int     `json:"early"`         // attempts before their reserved slot (a hint longer than MaxHint)
	MaxAccepts  int     `json:"max_accepts_s"` // the most accepts in one second
	PeakAdmits  int     `json:"peak_admits"`   // connections taken in the busiest window
}

// writeJSON writes the scenario and its rows.
func writeJSON(w io.Writer, s scenario, rs []result) error {
	out := struct {
		N        int     `json:"n"`
		Rate     int     `json:"rate"`
		DownS    float64 `json:"down_s"`
		Service  int     `json:"service"`
		Seed     uint64  `json:"seed"`
		IdealS   float64 `json:"ideal_s"`
		HorizonS float64 `json:"horizon_s"`
		Rows     []row   `json:"rows"`
	}{N: s.N, Rate: s.Rate, DownS: s.Down.Seconds(), Service: s.Service, Seed: s.Seed, IdealS: s.ideal().Seconds(), HorizonS: s.Horizon.Seconds()}
	for _, r := range rs {
		m := measure(s, r)
		last := -1.0
		if r.Left == 0 {
			last = r.LastConnected.Seconds()
		}
		out.Rows = append(out.Rows, row{Name: r.Name, Peak: m.peak, PeakUp: int(m.peakAfterUp), PeakUpOver: m.peakAfterUp / (float64(s.Rate) * s.Window.Seconds()),
			BeyondCap: m.beyondCap, Attempts: r.Attempts, Failed: r.Failed, FailedUp: r.FailedUp, LastBack: last, FinishRatio: m.finishRatio,
			Left: r.Left, Early: r.Early, MaxAccepts: r.MaxAccepts, PeakAdmits: m.peakAdmits})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
