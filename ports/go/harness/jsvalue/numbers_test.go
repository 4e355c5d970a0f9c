package jsvalue

import (
	"math"
	"testing"
)

// ECMAScript Number::toString layouts.

var tenth = 0.1 // a variable, so that 0.1 + 0.2 is computed in doubles

func TestNumberLayout(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.Copysign(0, -1), "0"}, {1, "1"}, {100, "100"}, {1e20, "100000000000000000000"},
		{1e21, "1e+21"}, {123456789012345678901, "123456789012345680000"},
		{9007199254740993, "9007199254740992"}, {1.5, "1.5"}, {0.1, "0.1"},
		{0.000001, "0.000001"}, {1e-7, "1e-7"}, {-1.5e-7, "-1.5e-7"}, {123e-20, "1.23e-18"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{tenth + 2*tenth, "0.30000000000000004"}, {-123.456, "-123.456"}, {1.2345e21, "1.2345e+21"},
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.in); got != tt.want {
			t.Errorf("FormatNumber(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
