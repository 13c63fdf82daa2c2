package detlint

// Rule names, as they appear in reports and in //detlint:allow comments.
const (
	ruleTime      = "time"
	ruleEnv       = "env"
	ruleRand      = "rand"
	ruleFileRead  = "fileread"
	ruleGoroutine = "goroutine"
	ruleSelect    = "select"
	ruleMapRange  = "maprange"
	ruleMapIter   = "mapiter"
	ruleFloat     = "float"
)

// Rules lists every rule name, in the order the package doc describes them.
var Rules = []string{
	ruleTime, ruleEnv, ruleRand, ruleFileRead, ruleGoroutine,
	ruleSelect, ruleMapRange, ruleMapIter, ruleFloat,
}

// forbidden is why one package-level function or variable is banned.
type forbidden struct {
	rule string
	why  string
}

const (
	clockRead = "reads the host clock; use the engine's virtual now in int64 ns"
	hostTimer = "a host timer fires without the engine's knowledge; return a ScheduleTimer action"
	hostState = "reads host process state; take the value from the scenario"
	fileRead  = "reads host filesystem state; only the file-I/O packages in Exemptions may"
)

// forbiddenObjects maps "importpath.Name" of a package-level function or
// variable to the rule it breaks. Methods are never listed: time.Time.After
// compares two values and is deterministic.
var forbiddenObjects = map[string]forbidden{
	"time.Now":   {ruleTime, clockRead},
	"time.Since": {ruleTime, clockRead},
	"time.Until": {ruleTime, clockRead},

	"time.After":     {ruleTime, hostTimer},
	"time.AfterFunc": {ruleTime, hostTimer},
	"time.NewTimer":  {ruleTime, hostTimer},
	"time.NewTicker": {ruleTime, hostTimer},
	"time.Tick":      {ruleTime, hostTimer},
	"time.Sleep":     {ruleTime, hostTimer},

	"syscall.Gettimeofday": {ruleTime, clockRead},

	"os.Getenv":       {ruleEnv, hostState},
	"os.LookupEnv":    {ruleEnv, hostState},
	"os.Environ":      {ruleEnv, hostState},
	"os.Hostname":     {ruleEnv, hostState},
	"os.Getpid":       {ruleEnv, hostState},
	"os.Getppid":      {ruleEnv, hostState},
	"os.Getuid":       {ruleEnv, hostState},
	"os.Args":         {ruleEnv, hostState},
	"syscall.Getenv":  {ruleEnv, hostState},
	"syscall.Environ": {ruleEnv, hostState},
	"syscall.Getpid":  {ruleEnv, hostState},
	"syscall.Getppid": {ruleEnv, hostState},
	"syscall.Getuid":  {ruleEnv, hostState},

	"os.ReadFile":           {ruleFileRead, fileRead},
	"os.Open":               {ruleFileRead, fileRead},
	"os.OpenFile":           {ruleFileRead, fileRead},
	"os.ReadDir":            {ruleFileRead, fileRead},
	"os.Stat":               {ruleFileRead, fileRead},
	"os.Lstat":              {ruleFileRead, fileRead},
	"os.OpenRoot":           {ruleFileRead, fileRead},
	"os.OpenInRoot":         {ruleFileRead, fileRead},
	"path/filepath.Walk":    {ruleFileRead, fileRead},
	"path/filepath.WalkDir": {ruleFileRead, fileRead},
	"io/ioutil.ReadFile":    {ruleFileRead, fileRead},
	"io/ioutil.ReadDir":     {ruleFileRead, fileRead},
}

// forbiddenImports maps an import path to why importing it at all breaks
// the rand rule: each is a random source seeded outside the randomness tree.
var forbiddenImports = map[string]string{
	"math/rand":    "host randomness; draw from an rng substream",
	"math/rand/v2": "host randomness; draw from an rng substream",
	"crypto/rand":  "host entropy; draw from an rng substream",
	"hash/maphash": "seeded per process, so hashes differ between runs",
}

// mapIterators are the functions that yield a map's contents in random
// order; sorters are the only callers allowed to consume them directly.
var (
	mapIterators = map[string]bool{"maps.Keys": true, "maps.Values": true, "maps.All": true}
	sorters      = map[string]bool{"slices.Sorted": true, "slices.SortedFunc": true, "slices.SortedStableFunc": true}
)
