#!/usr/bin/env bash
# Reads the experiment labels of bench/registry.toml for the bench/gpu scripts. awk, not Python:
# the GPU machine may lack Python. The registry's header says which TOML subset [labels] keeps.
#
#   tools/registry.sh label KEY [FILL]   prints the label; FILL replaces the `{}` of a template
#   tools/registry.sh labels             prints every `key label` pair
#
# Exits 2, naming the key and the file, when KEY is not registered or FILL does not match it.
set -euo pipefail

REGISTRY=${RAYDB_REGISTRY:-$(dirname "$0")/../bench/registry.toml}
[[ -r $REGISTRY ]] || { echo "registry: cannot read $REGISTRY" >&2; exit 2; }

pairs() {
  awk '
    /^[[:space:]]*\[/ { in_labels = ($0 ~ /^[[:space:]]*\[labels\][[:space:]]*(#.*)?$/); next }
    in_labels && match($0, /^[[:space:]]*[a-z0-9_]+[[:space:]]*=[[:space:]]*"[^"\\]*"/) {
      line = substr($0, RSTART, RLENGTH)
      key = line; sub(/[[:space:]]*=.*/, "", key); gsub(/[[:space:]]/, "", key)
      value = line; sub(/^[^"]*"/, "", value); sub(/"$/, "", value)
      print key, value
    }' "$REGISTRY"
}

case ${1:-} in
  labels) pairs ;;
  label)
    key=${2:?"usage: tools/registry.sh label KEY [FILL]"}
    value=$(pairs | awk -v k="$key" '$1 == k { print $2; exit }')
    if [[ -z $value ]]; then
      echo "registry: no label '$key' in [labels] of $REGISTRY" >&2
      exit 2
    fi
    if [[ $value == *"{}"* ]]; then
      [[ $# -eq 3 && -n $3 ]] || { echo "registry: label '$key' ($value) needs a FILL for {}" >&2; exit 2; }
      value=${value/"{}"/$3}
    elif [[ $# -gt 2 ]]; then
      echo "registry: label '$key' ($value) has no {} for '$3'" >&2
      exit 2
    fi
    echo "$value"
    ;;
  *)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
