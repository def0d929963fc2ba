"""Which task runs where and when: the split tree of an exact solve (:mod:`.split`,
regrown under running tasks by :mod:`.resplit` and :mod:`.places`), the coordinator
(:mod:`.coordinator`) with its task log (:mod:`.tasklog`) and checkpoint journal
(:mod:`.checkpoint`), the process's coordinators (:mod:`.registry`), and a parallel
exact solve from probes to line (:mod:`.driver`)."""
