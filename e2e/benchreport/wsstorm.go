package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// herdRow is one row of examples/herd -json.
type herdRow struct {
	Name      string  `json:"name"`
	Peak      int     `json:"peak"`
	PeakUp    int     `json:"peak_up"`
	PeakUpCap float64 `json:"peak_up_cap"`
	BeyondCap int     `json:"beyond_cap"`
	FailedUp  int     `json:"failed_up"`
	LastBack  float64 `json:"last_back_s"`
	Attempts  int     `json:"attempts"`
	Failed    int     `json:"failed"`
	Finish    float64 `json:"finish_ideal"`
	Left      int     `json:"left"`
	Early     int     `json:"early"`
	// PeakAdmits is the busiest window of connections taken.
	PeakAdmits int `json:"peak_admits"`
}

type herdRun struct {
	N        int       `json:"n"`
	Rate     int       `json:"rate"`
	DownS    float64   `json:"down_s"`
	IdealS   float64   `json:"ideal_s"`
	HorizonS float64   `json:"horizon_s"`
	Rows     []herdRow `json:"rows"`
}

// herdJSON runs the simulator with args and -json.
func herdJSON(args ...string) (herdRun, error) {
	var r herdRun
	out, err := goCmd(herdDir, append([]string{"run", herdPkg, "-json"}, args...)...)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal([]byte(out), &r)
}

func (r herdRun) row(name string) (herdRow, bool) {
	for _, x := range r.Rows {
		if x.Name == name {
			return x, true
		}
	}
	return herdRow{}, false
}

// stormRows maps the storm's strategies to the simulator's rows.
var stormRows = []struct{ bench, herd, what string }{
	{"redial", "redial policy", "redial's default supervisor (`websocket.New`)"},
	{"no-jitter", "no jitter", "no-jitter exponential loop (1 s, 2 s, 4 s..., cap 1 min)"},
	{"cenkalti-v5", "cenkalti v5", "cenkalti/backoff/v5 `Retry`, defaults"},
	{"grpc", "gRPC (1.6x, ±20%)", "gRPC connection backoff (1 s, x1.6, ±20 %, cap 120 s)"},
}

// agree reports whether measured is within 15 % of predicted.
func agree(measured, predicted float64) (bool, string) {
	if predicted <= 0 {
		return false, "-"
	}
	d := measured/predicted - 1
	return math.Abs(d) <= 0.15, fmt.Sprintf("%+.0f%%", d*100)
}

// wsStormTable runs one storm and the simulator beside it and writes the
// table; it returns whether every row agreed on peak and all-back.
func wsStormTable(b *strings.Builder, bn bench, n, rate int, down string) (bool, error) {
	out, err := bn.run()
	if err != nil {
		return false, err
	}
	ss := parse(out)
	service, _ := median(ss, "BenchmarkWebSocketStorm/calibrate", "hs/s")
	h, err := herdJSON("-n", strconv.Itoa(n), "-rate", strconv.Itoa(rate), "-down", down, "-service", strconv.Itoa(int(service)))
	if err != nil {
		return false, err
	}
	fmt.Fprintf(b, "%s: %d clients, the server away for %s, then %d handshakes a second (%d per 100 ms window). This machine answers %.0f handshakes a second (calibrated in the same run: %d clients dialing at one instant, the busiest 100 ms); the simulator's row is `go run ./examples/herd -n %d -rate %d -down %s -service %.0f`.\n\n",
		bn, n, down, rate, rate/10, service, n, n, rate, down, service)
	fmt.Fprintf(b, "| strategy | peak handshakes / 100 ms (herd) | peak / capacity | handshakes beyond capacity (herd) | failed handshakes (herd) | every client back (herd) | agree: peak, all back |\n|---|---|---|---|---|---|---|\n")
	all := true
	for _, r := range stormRows {
		name := "BenchmarkWebSocketStorm/" + r.bench
		peak, k := median(ss, name, "peak-hs/100ms")
		if k == 0 {
			return false, fmt.Errorf("no result for %s", name)
		}
		over, _ := median(ss, name, "peak/cap")
		beyond, _ := median(ss, name, "hs-beyond-cap")
		failed, _ := median(ss, name, "failed-hs")
		back, _ := median(ss, name, "s-until-all-back")
		hr, ok := h.row(r.herd)
		if !ok {
			return false, fmt.Errorf("herd has no row %q", r.herd)
		}
		okPeak, dPeak := agree(peak, float64(hr.PeakUp))
		okBack, dBack := agree(back, hr.LastBack)
		all = all && okPeak && okBack
		backText := "not all"
		if back >= 0 {
			backText = fmt.Sprintf("%.1f s", back)
		}
		fmt.Fprintf(b, "| %s | %.0f (%d) | %.1fx | %.0f (%d) | %.0f (%d) | %s (%.1f s) | %s %s, %s %s |\n",
			r.what, peak, hr.PeakUp, over, beyond, hr.BeyondCap, failed, hr.FailedUp, backText, hr.LastBack,
			dPeak, verdict(okPeak), dBack, verdict(okBack))
	}
	if err := calibrationSpread(b, ss, n, rate, down); err != nil {
		return false, err
	}
	if plain, err := herdJSON("-n", strconv.Itoa(n), "-rate", strconv.Itoa(rate), "-down", down); err == nil {
		if nj, ok := plain.row("no jitter"); ok {
			peak, _ := median(ss, "BenchmarkWebSocketStorm/no-jitter", "peak-hs/100ms")
			_, d := agree(peak, float64(nj.PeakUp))
			fmt.Fprintf(b, "\nWithout `-service` (every handshake answered the instant it is made) the simulator predicts the no-jitter peak at %d per window: the measurement is %s off it.\n", nj.PeakUp, d)
		}
	}
	fmt.Fprintln(b)
	return all, nil
}

// wsStormSection reports the seed's scenario for real: WebSocket clients
// of four strategies, a server that goes away and then takes K a second.
func wsStormSection(b *strings.Builder) error {
	fmt.Fprintf(b, "## The WebSocket storm, for real, beside the simulator\n\n")
	fmt.Fprintf(b, "e2e/storm: N WebSocket clients of one strategy connected to one server in another process; the server's process exits (the kernel drops every connection at once) and another listens on the same address after the outage, accepting K new connections a second counted from the moment the first went away and answering the excess 503 without Retry-After, so that the clients' own policies decide. ")
	fmt.Fprintf(b, "Figures from the server's records: handshakes in the busiest 100 ms window once it is back, that over the capacity per window, handshakes beyond capacity summed over the windows, handshakes answered 503, and the seconds from its going away until the N-th was accepted. redial's connections are held 31 s first, so that their loss counts as stable (StableAfter 30 s), as a real fleet's hours-old ones do; everything else is `websocket.New`'s defaults. ")
	fmt.Fprintf(b, "Beside each figure, in parentheses, examples/herd's prediction for the same N, K, outage and the same strategies' parameters (cenkalti's and gRPC's rows are reference models of those libraries, written in the simulator). Target: within 15 %% on the peak and on the time until every client is back.\n\n")
	fmt.Fprintf(b, "The simulator's model was fixed on the way: a server (and a machine) answers a limited number of handshakes a second, so a wave of no-jitter clients reaches it spread over a fifth of a second instead of in one window; `-service` takes that rate, first come first served, and the storm calibrates it (the figure under each table says what the simulator predicts without it).\n\n")
	fmt.Fprintf(b, "### %d clients, 500 ms outage\n\n", stormN)
	short, err := wsStormTable(b, wsStormShort, stormN, stormN/10, "500ms")
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "### %d clients, 30 s outage\n\n", stormN)
	long, err := wsStormTable(b, wsStormLong, stormN, stormN/10, "30s")
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "Target, measurement and simulator within 15 %% on peak and all-back: 500 ms outage %s, 30 s outage %s.\n\n", verdict(short), verdict(long))
	if !long {
		fmt.Fprintf(b, "Where they part after 30 s it is the no-jitter wave's width (if a row above says missed on its peak): the simulator, with its service rate, keeps a wave of no-jitter clients as wide as one service time, since every client waits exactly the same after a failure; on the machine each of the outage's five refused waves is handled by two cores in the order the scheduler picks, so the clients' offsets drift apart wave after wave, and the wave that meets the server is wider and its peak lower. Modelling that drift would model this machine's scheduler, not the strategy, so the model stops at the service rate; the time until every client is back, which the wave's width does not change, agrees.\n\n")
	}
	fmt.Fprintf(b, "### 10,000 clients, 500 ms outage: where the machine decides\n\n")
	if _, err := wsStormTable(b, wsStorm10k, 10000, 1000, "500ms"); err != nil {
		return err
	}
	fmt.Fprintf(b, "N = %d is the largest N this two-core machine holds as the scenario means it: at 10,000 the clients and the server share two cores, and the machine, not the clients' policies, sets the pace. ", stormN)
	fmt.Fprintf(b, "10,000 redial supervisors take CPU to handle the loss (`go test -run '^$' -bench MassLoss -benchtime 1x ./storm` measures it per supervisor, and its `-storm.lossprofile` what redaction takes of it), so their first retries leave in a burst after it; a no-jitter wave of 9,000 handshakes is answered over half a second and more, across second boundaries, so it is admitted in fewer waves than a real server with spare cores would allow. ")
	fmt.Fprintf(b, "The rows above show the figures at 10,000 for what they are: the machine's.\n\n")
	return nil
}

// calibrationSpread says how far the calibration's own bursts spread, and
// what the simulator predicts for the no-jitter peak at their two ends:
// that peak is the machine's handshake rate over one window, so a rate
// that varies from burst to burst moves it as much.
func calibrationSpread(b *strings.Builder, ss []sample, n, rate int, down string) error {
	lo, k := median(ss, "BenchmarkWebSocketStorm/calibrate", "hs/s-lo")
	hi, _ := median(ss, "BenchmarkWebSocketStorm/calibrate", "hs/s-hi")
	if k == 0 {
		return nil
	}
	peak, _ := median(ss, "BenchmarkWebSocketStorm/no-jitter", "peak-hs/100ms")
	var at [2]int
	for i, svc := range []float64{lo, hi} {
		h, err := herdJSON("-n", strconv.Itoa(n), "-rate", strconv.Itoa(rate), "-down", down, "-service", strconv.Itoa(int(svc)))
		if err != nil {
			return err
		}
		if nj, ok := h.row("no jitter"); ok {
			at[i] = nj.PeakUp
		}
	}
	inside := "inside"
	if p := int(peak); p < min(at[0], at[1]) || p > max(at[0], at[1]) {
		inside = "outside"
	}
	fmt.Fprintf(b, "\nThe no-jitter peak is this machine's handshake rate over one window, and that rate is not steady: the calibration's five bursts of this run ranged from %.0f to %.0f handshakes a second, for which the simulator predicts a no-jitter peak of %d to %d; the measured %.0f is %s that range.\n", lo, hi, at[0], at[1], peak, inside)
	return nil
}
