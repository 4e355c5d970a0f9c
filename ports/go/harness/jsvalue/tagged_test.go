package jsvalue

import (
	"strings"
	"testing"
)

func decodeText(t *testing.T, text string) (any, error) {
	t.Helper()
	parsed, err := ParseJSON([]byte(text))
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return DecodeTagged(parsed)
}

// An alias is the anchor's own map or slice (PROT-33), whatever order the Go
// map hands the members to the decoder in (PROT-34).
func TestAliasSharesTheAnchorsContainer(t *testing.T) {
	for i := 0; i < 20; i++ { // map iteration order varies from run to run
		v, err := decodeText(t, `{"a":{"$js":"anchor","name":"x","value":{"k":[1]}},"b":[{"$js":"alias","name":"x"}],"c":{"d":{"$js":"alias","name":"x"}}}`)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		a, _ := Identity(m["a"])
		b, _ := Identity(m["b"].([]any)[0])
		c, _ := Identity(m["c"].(map[string]any)["d"])
		if a != b || a != c {
			t.Fatalf("alias is not the anchor's map: %v %v %v", a, b, c)
		}
		s, err := decodeText(t, `[{"$js":"anchor","name":"xs","value":[1,2]},{"$js":"alias","name":"xs"}]`)
		if err != nil {
			t.Fatal(err)
		}
		items := s.([]any)
		first, _ := Identity(items[0])
		second, _ := Identity(items[1])
		if first != second {
			t.Fatalf("alias is not the anchor's slice")
		}
	}
}

func TestMalformedSharingTags(t *testing.T) {
	cases := map[string]string{
		`{"$js":"alias","name":"x"}`:                                                      "names no anchor",
		`{"$js":"anchor","name":"x","value":[{"$js":"alias","name":"x"}]}`:                "cycle is written ref",
		`[{"$js":"anchor","name":"x","value":[]},{"$js":"anchor","name":"x","value":{}}]`: "twice",
		`{"$js":"anchor","name":"x","value":3}`:                                           "no array or object",
		`{"$js":"alias","name":""}`:                                                       "non-empty string",
		`{"$js":"bound","name":"k"}`:                                                      "unknown or malformed",
	}
	for text, complaint := range cases {
		if _, err := decodeText(t, text); err == nil || !strings.Contains(err.Error(), complaint) {
			t.Errorf("%s: error %v, want %q", text, err, complaint)
		}
	}
}

// A tag inside DecodeDepthLimit containers is undecodable, one level less is
// decoded, and plain JSON deeper still decodes as it is (PROT-41).
func TestDecodeDepthLimitRejectsOnlyTags(t *testing.T) {
	wrap := func(depth int, inner string) string {
		return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
	}
	tag := `{"$js":"object","value":{}}`
	if _, err := decodeText(t, wrap(DecodeDepthLimit, tag)); err == nil || !strings.Contains(err.Error(), "PROT-41") {
		t.Fatalf("a tag at the limit decoded: %v", err)
	}
	if _, err := decodeText(t, wrap(DecodeDepthLimit-1, tag)); err != nil {
		t.Fatalf("a tag inside the limit: %v", err)
	}
	if _, err := decodeText(t, `{"a":`+wrap(DecodeDepthLimit-2, `{"$js":"object","value":{"b":`+tag+`}}`)+`}`); err == nil {
		t.Fatal("a tag in an object literal at the limit decoded")
	}
	if _, err := decodeText(t, wrap(DecodeDepthLimit+50, "1")); err != nil {
		t.Fatalf("plain JSON past the limit: %v", err)
	}
}
