// Package jsvalue is the value model of the doom-loop conformance kit in Go:
// JSON values as a JavaScript program sees them, and their two text forms.
//
//	JSON null        nil
//	boolean          bool
//	number           float64 (Number also accepts Go's other numeric types
//	                 and json.Number, converted as JSON.parse would)
//	string           string, holding UTF-8; a lone UTF-16 surrogate is held
//	                 in its three-byte generalized-UTF-8 form ("WTF-8")
//	array            []any
//	object           map[string]any
//
// Undefined, BigInt and Function model the values only JavaScript has;
// ScriptedLoopKey is a loop-key function in data form. ParseJSON and
// AppendJSON read and write JSON text with JS semantics (lone surrogates
// kept, numbers rounded as JSON.parse does, members in UTF-16 order), and
// DecodeTagged / EncodeTagged translate the tagged {"$js": …} encoding of
// the vector files and the conformance protocol. Strings are measured, cut,
// compared and escaped as UTF-16 code units (ToUnits, CompareUnits, …);
// FormatNumber is ECMAScript's Number::toString, Trim and ToLowerCase are
// String.prototype's, Truthy is ToBoolean.
//
// For a port's engine, which must keep the order of an object's members
// (spec ENG-105), ParseOrdered reads JSON text as JSON.parse does into
// *Object (members in JS property order), Stringify writes it as
// JSON.stringify does, and Plain converts it to the map model above.
package jsvalue
