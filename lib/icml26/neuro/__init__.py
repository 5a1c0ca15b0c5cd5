"""Part IX, neural signals: EEG representation learning (chapter 19)."""
