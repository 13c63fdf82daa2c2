package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package puts the browser
// (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

// browser starts a headless chromium for one test and returns a context
// driving a tab in it. Without chromium the test fails in CI (CI=true) and
// skips elsewhere, saying how to install it. Under -short (.ci/quick) it
// skips: a browser test takes seconds to tens of seconds of real time,
// and the package's others check the page's data without one.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the browser tests drive chromium in real time (go test ./render runs them)")
	}
	path := chromiumPath
	if _, err := os.Stat(path); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			path = p
		} else {
			if os.Getenv("CI") == "true" {
				t.Fatalf("chromium not found at %s or on PATH: .ci/run installs it (apt-get install chromium)", chromiumPath)
			}
			t.Skipf("chromium not found (apt-get install -y chromium); the browser tests need it, and fail without it in CI")
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		// On a closed network chromium's own background connections are
		// refused and can stall start-up: turn them all off.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// wideBrowser is browser with its tab's viewport at 1280x900, the size
// the tests that read the page's layout (charts, lanes, the big run's
// page) measure it at.
func wideBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// open loads the page at path from a file:// URL (fragment appended) and
// waits until its script has drawn it.
func open(t *testing.T, ctx context.Context, path, fragment string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+abs+fragment),
		chromedp.WaitReady(chromedp.CSS(`html[data-ready="1"]`)),
	); err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// pageState is window.detsim.state(), as the tests read it.
type pageState struct {
	Hosts           int       `json:"hosts"`
	Lanes           int       `json:"lanes"`
	VisibleLanes    []string  `json:"visibleLanes"`
	LaneY           []float64 `json:"laneY"`
	LaneH           float64   `json:"laneH"`
	LabelWidth      float64   `json:"labelWidth"`
	Runs            int       `json:"runs"`
	DeliveredArrows int       `json:"deliveredArrows"`
	Arrows          int       `json:"arrows"`
	DrawnArrows     int       `json:"drawnArrows"`
	DrawnDelivered  int       `json:"drawnDelivered"`
	DrawnPerRun     []int     `json:"drawnArrowsPerRun"`
	Mode            string    `json:"mode"`
	Verdicts        int       `json:"verdicts"`
	Hidden          []string  `json:"hidden"`
	Focus           *string   `json:"focus"`
	Highlighted     *struct {
		Run  int   `json:"run"`
		Line int   `json:"line"`
		T    int64 `json:"t"`
	} `json:"highlighted"`
	MembershipRows int      `json:"membershipRows"`
	Notices        []string `json:"notices"`
}

func state(t *testing.T, ctx context.Context) pageState {
	t.Helper()
	return eval[pageState](t, ctx, "window.detsim.state()")
}
