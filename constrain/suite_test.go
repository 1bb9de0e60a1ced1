package constrain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteDir is the official JSON-Schema-Test-Suite (github.com/json-schema-org/JSON-Schema-Test-Suite).
const suiteDir = "../../shared/testdata/jsonschema-test-suite"

// suiteResolver serves the suite's remote documents: http://localhost:1234/x
// is remotes/x.
func suiteResolver(uri string) ([]byte, error) {
	rest, ok := strings.CutPrefix(uri, "http://localhost:1234/")
	if !ok { // the metaschemas are not part of the suite
		return nil, fmt.Errorf("%w: no remote document %s", ErrUnsupported, uri)
	}
	return os.ReadFile(filepath.Join(suiteDir, "remotes", filepath.FromSlash(rest)))
}

// encodeInstance writes v in its own key order, compact or with ", " and ": ".
func encodeInstance(sb *strings.Builder, v *jvalue, spaced bool) {
	comma, colon := ",", ":"
	if spaced {
		comma, colon = ", ", ": "
	}
	switch v.kind {
	case jArray:
		sb.WriteByte('[')
		for i, x := range v.arr {
			if i > 0 {
				sb.WriteString(comma)
			}
			encodeInstance(sb, x, spaced)
		}
		sb.WriteByte(']')
	case jObject:
		sb.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				sb.WriteString(comma)
			}
			sb.WriteString(canonicalJSON(k))
			sb.WriteString(colon)
			encodeInstance(sb, v.vals[i], spaced)
		}
		sb.WriteByte('}')
	default:
		v.encode(sb)
	}
}

type suiteStats struct {
	groups, compiled, empty        int
	unsupported                    map[string]int
	accepted, rejected             int
	validRejected, invalidAccepted int
}

// TestJSONSchemaTestSuite compiles every group of the suite's draft2020-12
// and draft7 folders (optional/ aside) in Spec mode. A group that compiles
// must accept each valid instance (compact and spaced) and reject each
// invalid one; a group that does not must fail with ErrUnsupported naming
// the keyword's pointer.
func TestJSONSchemaTestSuite(t *testing.T) {
	if _, err := os.Stat(suiteDir); err != nil {
		t.Skipf("JSON-Schema-Test-Suite not found at %s", suiteDir)
	}
	v := testVocab(t)
	for _, d := range []struct {
		dir              string
		draft            int
		minCompiled      int // coverage floors: what the compiler reaches today
		minInstancesPass int
	}{
		{"draft2020-12", 2020, 334, 2216},
		{"draft7", 7, 239, 1678},
	} {
		t.Run(d.dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(suiteDir, "tests", d.dir, "*.json"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			st := suiteStats{unsupported: map[string]int{}}
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				groups, err := parseJSON(data)
				require.NoError(t, err, f)
				for _, grp := range groups.arr {
					st.groups++
					name := filepath.Base(f) + ": " + grp.get("description").str
					var sb strings.Builder
					grp.get("schema").encode(&sb)
					tests := grp.get("tests").arr
					g, err := JSONSchemaWith([]byte(sb.String()), JSONOptions{Spec: true, Draft: d.draft, Resolver: suiteResolver})
					if err != nil {
						var ce *CompileError
						switch {
						case errors.Is(err, ErrUnsupported) && errors.As(err, &ce) && ce.Pointer != "":
							st.unsupported[keywordOf(ce.Pointer)]++
							if os.Getenv("SUITE_VERBOSE") != "" {
								t.Logf("%s: %v", name, err)
							}
						case errors.Is(err, ErrInvalid) && strings.Contains(err.Error(), "matches no string") && noneValid(tests):
							st.empty++ // a schema nothing satisfies, and the suite agrees
						default:
							t.Errorf("%s: compile error that is not a named unsupported keyword: %v", name, err)
						}
						continue
					}
					st.compiled++
					for _, tc := range tests {
						valid := tc.get("valid").b
						for _, spaced := range []bool{false, true} {
							var sb strings.Builder
							encodeInstance(&sb, tc.get("data"), spaced)
							m := g.NewMatcher(v)
							ok := m.AcceptBytes([]byte(sb.String())) == nil && m.Accepting()
							switch {
							case ok && valid:
								st.accepted++
							case !ok && !valid:
								st.rejected++
							case ok:
								st.invalidAccepted++
								t.Errorf("%s / %s: invalid instance accepted: %s", name, tc.get("description").str, sb.String())
							default:
								st.validRejected++
								t.Errorf("%s / %s: valid instance rejected: %s", name, tc.get("description").str, sb.String())
							}
						}
					}
				}
			}
			var kws []string
			for k, n := range st.unsupported {
				kws = append(kws, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(kws)
			t.Logf("%s: %d groups, %d compiled (%.1f%%), %d match nothing, unsupported: %s", d.dir, st.groups, st.compiled,
				100*float64(st.compiled)/float64(st.groups), st.empty, strings.Join(kws, ", "))
			t.Logf("%s: instances (each compact and spaced): %d valid accepted, %d invalid rejected, %d invalid accepted, %d valid rejected",
				d.dir, st.accepted, st.rejected, st.invalidAccepted, st.validRejected)
			assert.Zero(t, st.invalidAccepted, "invalid instances accepted")
			assert.Zero(t, st.validRejected, "valid instances rejected by compiled groups")
			assert.GreaterOrEqual(t, st.compiled+st.empty, d.minCompiled, "groups compiled")
			assert.GreaterOrEqual(t, st.accepted+st.rejected, d.minInstancesPass, "instances decided right")
		})
	}
}

// keywordOf is the keyword a JSON pointer ends in (skipping array indexes
// and property names under properties-like keywords).
func keywordOf(ptr string) string {
	toks := strings.Split(ptr, "/")
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		if t == "" || t[0] >= '0' && t[0] <= '9' {
			continue
		}
		if i > 0 && schemaMaps[toks[i-1]] {
			continue
		}
		return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return "(root)"
}

func noneValid(tests []*jvalue) bool {
	for _, tc := range tests {
		if tc.get("valid").b {
			return false
		}
	}
	return true
}

// BenchmarkJSONSchemaSuiteCompile compiles every schema of the suite's
// draft2020-12 and draft7 groups and reports the median and 99th
// percentile compile time per schema (failures to compile included).
func BenchmarkJSONSchemaSuiteCompile(b *testing.B) {
	if _, err := os.Stat(suiteDir); err != nil {
		b.Skipf("JSON-Schema-Test-Suite not found at %s", suiteDir)
	}
	type schema struct {
		src   []byte
		draft int
	}
	var schemas []schema
	for _, d := range []struct {
		dir   string
		draft int
	}{{"draft2020-12", 2020}, {"draft7", 7}} {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", d.dir, "*.json"))
		require.NoError(b, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(b, err)
			groups, err := parseJSON(data)
			require.NoError(b, err)
			for _, g := range groups.arr {
				var sb strings.Builder
				g.get("schema").encode(&sb)
				schemas = append(schemas, schema{[]byte(sb.String()), d.draft})
			}
		}
	}
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range schemas {
			start := time.Now()
			_, _ = JSONSchemaWith(s.src, JSONOptions{Spec: true, Draft: s.draft, Resolver: suiteResolver})
			times = append(times, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs/schema")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs/schema")
	b.ReportMetric(0, "ns/op")
}
