"""Places where tasks run: what one must do (:mod:`.backend`), forked processes on
shared memory (:mod:`.procpool` with :mod:`.worker` and :mod:`.shm`), threads
(:mod:`.threadpool`; both on :mod:`.localpool`), and Ray (:mod:`.ray_backend` with
:mod:`.ray_worker` and :mod:`.ray_board`). A pool runs what it is given; it
decides nothing."""
