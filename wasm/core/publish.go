package core

// Protocol lists, by name, every constant that the glue must agree with. The
// browser entry point hands it to the glue at start-up, so the glue's inlined
// fast paths use these values and no copies of them.
func Protocol() map[string]any {
	return map[string]any{
		"SLOTS":              Slots,
		"STATE_UNLOCKED":     stateUnlocked,
		"STATE_LOCKED":       stateLocked,
		"STATE_CONTENDED":    stateContended,
		"MAX_AGENT_ID":       maxAgentID,
		"RESULT_OK":          resultOK,
		"RESULT_BUSY":        resultBusy,
		"RESULT_NOT_LOCKED":  resultNotLocked,
		"RESULT_CORRUPTED":   resultCorrupted,
		"RESULT_HOLDER_DIED": resultHolderDied,
		"RESULT_DEADLOCK":    resultDeadlock,
		"RESULT_NOT_HOLDER":  resultNotHolder,
		"WOKEN_FIRST":        wokenFirst,
		"WOKEN_NOTIFIED":     wokenNotified,
		"WOKEN_OTHER":        wokenOther,
	}
}
