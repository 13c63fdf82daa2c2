package render

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html"
	"io"
	"strconv"
	"strings"
)

//go:embed assets/page.css
var pageCSS string

//go:embed assets/page.js
var pageJS string

// pageScript is the text of the page's script element, and scriptHash
// the Content-Security-Policy source that allows it and nothing else.
var (
	pageScript = "\n" + pageJS
	scriptHash = func() string {
		sum := sha256.Sum256([]byte(pageScript))
		return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	}()
)

// writePage writes the HTML: style, the data blob as a JSON script
// element (never executed; the page's script parses it), then the script.
func writePage(w io.Writer, p *pagePlan, runs []*run, opts Options) error {
	title := opts.Title
	if title == "" {
		parts := make([]string, len(runs))
		for i, r := range runs {
			parts[i] = r.name + " seed " + strconv.FormatUint(r.manifest.Seed, 10)
		}
		title = "detsim: " + strings.Join(parts, " vs ")
	}
	var b strings.Builder
	b.WriteString(pageHead)
	// No request may leave the page: the policy forbids every fetch, and
	// the inline script and style are the only ones allowed.
	// the page's own script, by its hash, is the only one that may run,
	// so even markup that slipped into the page could run nothing.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src '" + scriptHash + "'; style-src 'unsafe-inline'\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n<style>\n")
	b.WriteString(pageCSS)
	b.WriteString("</style>\n</head>\n<body>\n<h1 id=\"title\">" + html.EscapeString(title) + "</h1>\n")
	b.WriteString("<script type=\"application/json\" id=\"detsim-data\">")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := data(w, p, runs, opts); err != nil {
		return err
	}
	_, err := io.WriteString(w, "</script>\n<script>"+pageScript+"</script>\n</body>\n</html>\n")
	return err
}
