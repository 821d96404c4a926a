package web

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The package's browser tests share one headless Chromium: the first test that needs it starts it,
// and TestMain stops it. Each test gets a page of its own in a new browser context (its own storage,
// cookies and cache, as a fresh profile would have; disposed when the test ends) with its window
// size emulated. Starting a Chromium costs about a second of wall time and 0.8 s of CPU on the
// 2-core machine, which the 28 browser tests paid one by one before.

// chromium is the shared browser: ctx is its first page, whose cancel (stop) ends the browser.
var chromium struct {
	once sync.Once
	ctx  context.Context
	stop func()
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.stop != nil {
		chromium.stop()
	}
	os.Exit(code)
}

// startChromium starts the shared browser at path with a user data directory of its own.
func startChromium(path string) {
	dir, err := os.MkdirTemp("", "yinsh-chromium-")
	if err != nil {
		chromium.err = err
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("headless", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	// the browser outlives each test, so its log cannot go to one test's t.Logf; errors still go to
	// chromedp's default (the log package)
	ctx, cancelB := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}))
	chromium.ctx = ctx
	chromium.stop = func() {
		cancelB()
		cancelA()
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		chromium.err = err
	}
}

// newPage opens a page of the shared browser for t, width × height CSS pixels, in a new browser
// context, failing the test on any JavaScript error of the page; the page is closed and its browser
// context disposed when t ends, or when timeout has passed. It skips t as needBrowser does. Open it
// after the test's servers: t's cleanups run last first, and an httptest server's Close waits for
// the page's open connections (its event streams) until the page is closed.
func newPage(t *testing.T, width, height int, timeout time.Duration) context.Context {
	t.Helper()
	path := needBrowser(t)
	chromium.once.Do(func() { startChromium(path) })
	if chromium.err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, chromium.err)
	}
	ctx, cancelPage := chromedp.NewContext(chromium.ctx, chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancel()
		cancelPage()
	})
	failOnPageErrors(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("opening a page of Chromium: %v", err)
	}
	return ctx
}
