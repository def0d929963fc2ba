"""The exact search of one position (:mod:`.search`: kernel context, table and
control array around the negamax kernels) and the ladder of null-window probes that
turns yes/no answers into a score (:mod:`.probes`)."""
