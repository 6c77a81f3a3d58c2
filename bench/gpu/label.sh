# Sourced by the bench/gpu scripts: `label KEY [FILL]` prints the experiment label KEY of
# bench/registry.toml (through tools/registry.sh), the one place labels are spelled. Used as
# --label "$(label KEY)"; an unknown KEY stops the whole script, not only the substitution.
label() {
  "$(dirname "${BASH_SOURCE[0]}")/../../tools/registry.sh" label "$@" || kill -s TERM $$
}
