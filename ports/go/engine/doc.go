// Package engine is the Go port's engine level (spec §15): the tool loop
// around the doom-loop monitor of package doomloop, driven by a scripted
// model, as the SDK's run loop drives the monitor. Given a scenario
// (§15.1.4: the doomLoop option, tool declarations with their loop keys and
// kinds, DoomLoopDetected handlers with fixed outcomes, the caller's
// request, an initial state, and runs that are fresh turns or decision
// resumes), RunScenario gives the transcript of the observable run
// (ENG-156): every dispatch's request, the hook events, the tool bodies
// that ran, how each run ended and the state it saved.
//
// The calls of a normal round and of an approval-pause batch run
// concurrently, as in the SDK (ENG-138): each call has its own goroutine,
// the checkpoints pass a turn along in emission order, and each call's
// PreToolUse, body and Post* hook follow its checkpoint on its goroutine,
// without waiting for the other calls. Events are recorded in the order
// they happen, so a transcript holds one interleaving among those the
// partial order of ENG-139 allows.
//
// The runs ENG-151 puts outside the engine level's domain are run, the way
// the spec recommends, not refused: a pending call decided twice is decided
// once (the first decision, approvals before rejections), a HITL call in a
// response that pauses for approval stays pending with the approval calls,
// and an approved HITL call whose body returns null answers null.
//
// JSON is held as JavaScript holds it (Object, the harness library's
// jsvalue.Object, keeps JS property order), because the order of a result's
// members reaches the model (ENG-105). The files follow the spec's parts:
// scenario.go (§15.1.4, ENG-23), identity.go and loopkey.go (§15.2.1),
// detection.go (§15.2), batch.go (ENG-138), actions.go and hooks.go
// (§15.3), texts.go (§15.4.1), state.go (§15.5), toolchoice.go (ENG-145),
// run.go (§15.6), transcript.go (ENG-156), json.go (ENG-121).
package engine
