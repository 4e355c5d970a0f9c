package doomloop

import "errors"

// ErrTypeError is wrapped by the errors of the operations that throw a
// JavaScript TypeError in the SDK (spec §10.2): resolving the option null,
// an option whose text or escalation member is null, and using a bigint as
// maxPeriodTokens, minCoveredTokens or maxWindowTokens. The conformance
// protocol reports it as the error code "type-error".
var ErrTypeError = errors.New("TypeError")

// typeError is a TypeError with the SDK's situation in words.
type typeError struct{ detail string }

func (e *typeError) Error() string { return "TypeError: " + e.detail }

func (e *typeError) Unwrap() error { return ErrTypeError }

// WarnFunc receives what the SDK passes to console.warn: message is the
// exact text (spec §9); err is the error the SDK passes as a second argument
// (declareRound only), else nil.
type WarnFunc func(message string, err error)
