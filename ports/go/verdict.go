package doomloop

// Detector names the detector that produced a verdict.
type Detector string

// The detectors.
const (
	DetectorToolFingerprint       Detector = "tool-fingerprint"
	DetectorServerToolFingerprint Detector = "server-tool-fingerprint"
	DetectorTextRepetition        Detector = "text-repetition"
	DetectorTextStreak            Detector = "text-streak"
)

// Verdict is one detection: which detector, which action, and the message
// for the model. Tool verdicts carry the tool name (HasToolName); text
// verdicts do not.
type Verdict struct {
	Detector    Detector
	Action      Action
	Streak      float64
	Fingerprint string
	ToolName    string
	HasToolName bool
	Message     string
}

// JSON returns the verdict's wire form (nil for a nil verdict).
func (v *Verdict) JSON() any {
	if v == nil {
		return nil
	}
	out := map[string]any{
		"detector":    string(v.Detector),
		"action":      string(v.Action),
		"streak":      v.Streak,
		"fingerprint": v.Fingerprint,
		"message":     v.Message,
	}
	if v.HasToolName {
		out["toolName"] = v.ToolName
	}
	return out
}

// CallRecord is the result of recording one tool call.
type CallRecord struct {
	Fingerprint      string
	Streak           float64
	DuplicateInRound bool
	Verdict          *Verdict // nil when no rung meets
}

// JSON returns the record's wire form.
func (r CallRecord) JSON() map[string]any {
	out := map[string]any{
		"fingerprint":      r.Fingerprint,
		"streak":           r.Streak,
		"duplicateInRound": r.DuplicateInRound,
	}
	if r.Verdict != nil {
		out["verdict"] = r.Verdict.JSON()
	}
	return out
}
