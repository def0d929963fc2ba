#!/usr/bin/env bash
# Build the peer solvers that `python run_bench.py --peer ...` runs beside ours
# (docs/peers.md): Pascal Pons' Connect Four solver and Christophe Steininger's c4,
# each linked with a small driver of ours that speaks the peer contract of
# bench/peers.py: read one position a line on stdin (column digits from 1; an empty
# line is the empty board; anything from the first blank on is ignored) and print
# "<moves> <score> <nodes> <microseconds>" for it, the score in Pons' convention
# (ours on 7x6); with the option -w, a weak solve (only the score's sign counts).
# Nothing of either project is copied into this repository: the sources are taken
# from your own clones at build time.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: bench/build_peers.sh SRC_DIR OUT_DIR

SRC_DIR holds clones of the two public repositories (a work tree or a bare git
directory each), found as
  SRC_DIR/connect4  or  SRC_DIR/PascalPons+connect4/repo     https://github.com/PascalPons/connect4
  SRC_DIR/c4        or  SRC_DIR/ChristopheSteininger+c4/repo https://github.com/ChristopheSteininger/c4
for example after
  git clone https://github.com/PascalPons/connect4 SRC_DIR/connect4
  git clone https://github.com/ChristopheSteininger/c4 SRC_DIR/c4

OUT_DIR receives (besides the sources and drivers they are built from):
  pons          Pons' solver, 7x6
  c4_7x6        c4, 7x6, 1 thread, 1 GB table    (empty boards: run with --peer empty:...)
  c4_6x6        c4, 6x6, 1 thread, 1 GB table    (empty boards)
  c4_7x6_64m    c4, 7x6, 1 thread, 64 MB table   (sets of positions: the table is cleared per line)
  c4_6x6_64m    c4, 6x6, 1 thread, 64 MB table
  c4_7x6_tN     c4, 7x6, N threads (its Lazy SMP), 1 GB table, for each N in C4_THREADS

Environment (all optional):
  CXX            the C++ compiler (default g++; needs C++20 for c4)
  PONS_REV       commit of Pons' repository to build (default HEAD)
  C4_REV         commit of c4 to build (default HEAD)
  C4_THREADS     thread counts of the c4_7x6_tN builds (default "2"; e.g. "2 4 8 16")
  EXTRA_LDFLAGS  added to every link (e.g. -static, to run the binaries on another machine)
EOF
  exit 2
}

[ $# -eq 2 ] || usage
case "$1" in -h|--help) usage ;; esac
src=$1
out=$2
cxx=${CXX:-g++}
pons_rev=${PONS_REV:-HEAD}
c4_rev=${C4_REV:-HEAD}
c4_threads=${C4_THREADS:-2}
read -r -a ldextra <<< "${EXTRA_LDFLAGS:-}"

die() { echo "build_peers.sh: $*" >&2; exit 1; }

# The git directory of a repository under $src: "$src/<name>" (a clone) or
# "$src/<owner>+<name>/repo" (a bare mirror).
find_repo() {
  local owner=$1 name=$2 dir
  for dir in "$src/$name" "$src/$owner+$name/repo"; do
    if [ -d "$dir" ] && git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
      echo "$dir"
      return 0
    fi
  done
  die "no clone of $owner/$name in $src (expected $src/$name or $src/$owner+$name/repo)"
}

# Export commit $2 of the repository at $1 into the empty folder $3.
export_tree() {
  rm -rf "$3"
  mkdir -p "$3"
  git -C "$1" archive --format=tar "$2" | tar -x -C "$3"
}

mkdir -p "$out/drivers"
out=$(cd "$out" && pwd)

pons_repo=$(find_repo PascalPons connect4)
c4_repo=$(find_repo ChristopheSteininger c4)
echo "Pons' connect4 at $(git -C "$pons_repo" rev-parse "$pons_rev"), c4 at $(git -C "$c4_repo" rev-parse "$c4_rev")"

# ---------------------------------------------------------------- the drivers (ours)
cat > "$out/drivers/pons_driver.cpp" <<'EOF'
// Peer driver for Pascal Pons' Connect Four solver (bench/peers.py's contract).
#include <chrono>
#include <iostream>
#include <string>

#include "Solver.hpp"

using GameSolver::Connect4::Position;
using GameSolver::Connect4::Solver;

int main(int argc, char **argv) {
  const bool weak = argc > 1 && std::string(argv[1]) == "-w";
  Solver solver;
  std::string line;
  while (std::getline(std::cin, line)) {
    const std::string moves = line.substr(0, line.find_first_of(" \t\r"));
    Position position;
    if (position.play(moves) != moves.size()) {   // a bad digit, a full column, or a move after a win
      std::cout << moves << " invalid" << std::endl;
      continue;
    }
    solver.reset();                                // an empty table: each line is solved alone
    const auto start = std::chrono::steady_clock::now();
    const int score = solver.solve(position, weak);
    const auto stop = std::chrono::steady_clock::now();
    std::cout << moves << ' ' << score << ' ' << solver.getNodeCount() << ' '
              << std::chrono::duration_cast<std::chrono::microseconds>(stop - start).count() << std::endl;
  }
  return 0;
}
EOF

cat > "$out/drivers/c4_driver.cpp" <<'EOF'
// Peer driver for Christophe Steininger's c4 (bench/peers.py's contract).
#include <chrono>
#include <iostream>
#include <string>

#include "solver/position.h"
#include "solver/settings.h"
#include "solver/solver.h"

int main(int argc, char **argv) {
  const bool weak = argc > 1 && std::string(argv[1]) == "-w";
  Solver solver{};
  std::string line;
  while (std::getline(std::cin, line)) {
    const std::string moves = line.substr(0, line.find_first_of(" \t\r"));
    Position position{};
    bool valid = true;
    for (const char c : moves) {
      const int col = c - '1';                     // columns from 1 in the input, from 0 in c4
      if (col < 0 || col >= BOARD_WIDTH) {
        valid = false;
        break;
      }
      position.move(col);
    }
    if (!valid) {
      std::cout << moves << " invalid" << std::endl;
      continue;
    }
    solver.clear_state();                          // an empty table and zeroed counters per line
    const auto start = std::chrono::steady_clock::now();
    const int score = weak ? solver.solve_weak(position) : solver.solve_strong(position);
    const auto stop = std::chrono::steady_clock::now();
    std::cout << moves << ' ' << score << ' ' << solver.get_merged_stats().get_num_nodes() << ' '
              << std::chrono::duration_cast<std::chrono::microseconds>(stop - start).count() << std::endl;
  }
  return 0;
}
EOF

# ---------------------------------------------------------------- Pons' solver
export_tree "$pons_repo" "$pons_rev" "$out/pons_src"
echo "building pons"
"$cxx" -std=c++11 -O3 -DNDEBUG -I "$out/pons_src" -o "$out/pons" \
  "$out/drivers/pons_driver.cpp" "$out/pons_src/Solver.cpp" ${ldextra[@]+"${ldextra[@]}"}
built=("$out/pons")

# ---------------------------------------------------------------- c4
# Every c4 setting is a compile-time constant of src/solver/settings.h; one build per
# board size, table size and thread count. Table sizes are primes: 134217757 entries
# = 1 GB, 8388617 = 64 MB.
export_tree "$c4_repo" "$c4_rev" "$out/c4_src"

set_constant() {   # set_constant FILE NAME VALUE: "NAME = <number>;" becomes "NAME = VALUE;"
  sed -i -E "s/(constexpr [a-z0-9_]+ $2 = )[0-9]+;/\1$3;/" "$1"
  grep -Eq "constexpr [a-z0-9_]+ $2 = $3;" "$1" || die "could not set $2 = $3 in $1 (settings.h changed?)"
}

build_c4() {   # build_c4 NAME WIDTH HEIGHT TABLE_ENTRIES THREADS
  local name=$1 dir="$out/$1_src"
  rm -rf "$dir"
  cp -r "$out/c4_src/src" "$dir"
  set_constant "$dir/solver/settings.h" BOARD_WIDTH "$2"
  set_constant "$dir/solver/settings.h" BOARD_HEIGHT "$3"
  set_constant "$dir/solver/settings.h" NUM_TABLE_ENTRIES "$4"
  set_constant "$dir/solver/settings.h" NUM_THREADS "$5"
  echo "building $name"
  "$cxx" -std=c++20 -O3 -DNDEBUG -flto -pthread -I "$dir" -o "$out/$name" "$out/drivers/c4_driver.cpp" \
    "$dir"/solver/*.cpp "$dir"/solver/parallel/*.cpp "$dir"/solver/util/*.cpp ${ldextra[@]+"${ldextra[@]}"}
  built+=("$out/$name")
}

build_c4 c4_7x6 7 6 134217757 1
build_c4 c4_6x6 6 6 134217757 1
build_c4 c4_7x6_64m 7 6 8388617 1
build_c4 c4_6x6_64m 6 6 8388617 1
for n in $c4_threads; do
  case "$n" in ''|*[!0-9]*) die "C4_THREADS must be whole numbers, got '$n'" ;; esac
  build_c4 "c4_7x6_t$n" 7 6 134217757 "$n"
done

echo "built: ${built[*]}"
