"""The typed words every layer above the game shares: what a caller asks of a
search (:mod:`.options`: :class:`~.options.Limit`, :class:`~.options.SolveOptions`)
and what it answers (:mod:`.results`: :class:`~.results.SolveResult`,
:class:`~.results.LimitedResult`)."""
