package commands

// Binder fills a command's Args from the words of one surface (the CLI's
// flags and arguments, a terminal dot-command): flags by name, bare words
// into the slots (Definition.Slots) in order. The CLI and the terminal both
// bind through it, so a flag given by name and a bare word mean the same
// on both.
type Binder struct {
	// Args is the pointer being filled (Definition.NewArgs).
	Args  any
	slots []Arg
}

// NewBinder starts binding a fresh Args of d, holding its defaults.
func (d *Definition) NewBinder() *Binder {
	return &Binder{Args: d.NewArgs(), slots: d.Slots()}
}

// Set assigns a from text (a flag given by name): a is then no longer a slot
// that bare words fill.
func (b *Binder) Set(a Arg, text string) error {
	if err := Set(b.Args, a, text); err != nil {
		return err
	}
	for i, s := range b.slots {
		if s.Name == a.Name {
			b.slots = append(b.slots[:i], b.slots[i+1:]...)
			break
		}
	}
	return nil
}

// Word fills the next slot with a bare word; a variadic slot takes every
// word after it. ok is false when no slot is left for w.
func (b *Binder) Word(w string) (ok bool, err error) {
	if len(b.slots) == 0 {
		return false, nil
	}
	if err := Append(b.Args, b.slots[0], w); err != nil {
		return true, err
	}
	if !b.slots[0].Variadic() {
		b.slots = b.slots[1:]
	}
	return true, nil
}

// Open lists the slots still open: those no word or flag filled, and a
// variadic one even after it took words.
func (b *Binder) Open() []Arg { return b.slots }
