# Sourced by models/fetch.sh and models/fetch_e5.sh: model files checked by sha256, restored from the cache
# outside the clone (~/.cache/quire/models, so a fresh clone neither downloads nor converts again), and put
# into models/ only once verified, through a `.partial` name so that none is ever left half-written. Each
# function takes "name:sha256" pairs; `dir` is models/.
cache="${QUIRE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/quire/models}"

verified() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# Copies each file from the cache where models/ has no verified copy; true when every one is then verified.
restored() {
  local pair name sum all=0
  for pair in "$@"; do
    name="${pair%%:*}"; sum="${pair#*:}"
    if ! verified "$dir/$name" "$sum" && verified "$cache/$name" "$sum"; then
      cp "$cache/$name" "$dir/$name"
    fi
    verified "$dir/$name" "$sum" || all=1
  done
  return $all
}

# Moves each file of folder $1, once verified, into models/ and copies it into the cache; fails on the first
# that does not have its sha256.
install_verified() {
  local from="$1" pair name sum; shift
  for pair in "$@"; do
    name="${pair%%:*}"; sum="${pair#*:}"
    if ! verified "$from/$name" "$sum"; then
      echo "models: error: $name does not have the expected sha256 $sum" >&2
      exit 1
    fi
    mv "$from/$name" "$dir/$name.partial" && mv "$dir/$name.partial" "$dir/$name"
    mkdir -p "$cache" && cp "$dir/$name" "$cache/$name"
  done
}
