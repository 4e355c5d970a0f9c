package jsvalue

import (
	"math"
	"testing"
)

func TestTruthyIsJSToBoolean(t *testing.T) {
	for _, v := range []any{nil, Undefined{}, false, 0.0, math.Copysign(0, -1), math.NaN(), "", BigInt{"0"}, BigInt{"-00"}, 0} {
		if Truthy(v) {
			t.Errorf("%#v is falsy in JS", v)
		}
	}
	for _, v := range []any{true, 1.0, -1, "0", " ", BigInt{"-1"}, []any{}, map[string]any{}, Function{}, math.Inf(1)} {
		if !Truthy(v) {
			t.Errorf("%#v is truthy in JS", v)
		}
	}
}
