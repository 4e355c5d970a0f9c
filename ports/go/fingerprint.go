package doomloop

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"unicode/utf8"

	"doomloop.invalid/harness/jsvalue"
)

// FingerprintKeyMaterial is the lowercase hex SHA-256 of the UTF-8 bytes of
// Canonicalize(keyMaterial).
func FingerprintKeyMaterial(keyMaterial any) (string, error) {
	f := fingerprinters.Get().(*fingerprinter)
	defer fingerprinters.Put(f)
	h, err := f.keyMaterial(keyMaterial)
	if err != nil {
		return "", err
	}
	return string(h[:]), nil
}

// FingerprintToolCall is the lowercase hex SHA-256 of the UTF-8 bytes of
// toolName + "\n" + Canonicalize(keyMaterial). The tool name is hashed
// raw; a lone surrogate in it is encoded as U+FFFD, as JS TextEncoder does.
func FingerprintToolCall(toolName string, keyMaterial any) (string, error) {
	f := fingerprinters.Get().(*fingerprinter)
	defer fingerprinters.Put(f)
	h, err := f.toolCall(toolName, keyMaterial)
	if err != nil {
		return "", err
	}
	return string(h[:]), nil
}

var fingerprinters = sync.Pool{New: func() any { return new(fingerprinter) }}

// fingerprinter computes fingerprints reusing its buffers, so that the
// monitor's hot path allocates nothing for them. Not safe for concurrent use.
type fingerprinter struct {
	c canonicalizer
}

// hexDigest is a fingerprint before it becomes a string.
type hexDigest [64]byte

func (f *fingerprinter) keyMaterial(keyMaterial any) (hexDigest, error) {
	return f.digest(f.c.out[:0], keyMaterial)
}

func (f *fingerprinter) toolCall(toolName string, keyMaterial any) (hexDigest, error) {
	var h hexDigest
	sum, err := f.toolCallDigest(toolName, keyMaterial)
	if err == nil {
		hex.Encode(h[:], sum[:])
	}
	return h, err
}

func (f *fingerprinter) digest(prefix []byte, keyMaterial any) (hexDigest, error) {
	var h hexDigest
	sum, err := f.raw(prefix, keyMaterial)
	if err == nil {
		hex.Encode(h[:], sum[:])
	}
	return h, err
}

// toolCallDigest is the raw SHA-256 behind FingerprintToolCall.
func (f *fingerprinter) toolCallDigest(toolName string, keyMaterial any) (digest, error) {
	b := f.c.out[:0]
	if utf8.ValidString(toolName) {
		b = append(b, toolName...)
	} else {
		b = append(b, jsvalue.EncodeUTF8(toolName)...)
	}
	return f.raw(append(b, '\n'), keyMaterial)
}

func (f *fingerprinter) raw(prefix []byte, keyMaterial any) (digest, error) {
	f.c.out, f.c.ancestors = prefix, f.c.ancestors[:0]
	if err := f.c.visit(keyMaterial, 0); err != nil {
		f.c.out = f.c.out[:0]
		return digest{}, err
	}
	// The canonical form is valid UTF-8 (lone surrogates are escaped).
	return sha256.Sum256(f.c.out), nil
}
