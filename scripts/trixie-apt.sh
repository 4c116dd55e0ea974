# Sourced by the e2e dependency scripts. add_trixie_source adds Debian trixie as an apt
# source pinned at priority 100, so only packages asked for as <name>/trixie come from it and
# nothing else on the machine is upgraded. Sets sudo_cmd (empty when root).
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)

add_trixie_source() {
  if [ ! -f /etc/apt/sources.list.d/headroom-trixie.sources ]; then
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/headroom-trixie.sources >/dev/null
    printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' |
      "${sudo_cmd[@]}" tee /etc/apt/preferences.d/headroom-trixie >/dev/null
    "${sudo_cmd[@]}" apt-get update -qq
  fi
  if ! apt-cache policy 2>/dev/null | grep -q 'n=trixie'; then
    "${sudo_cmd[@]}" apt-get update -qq
  fi
}

# install_missing PACKAGE...: installs those of the Debian packages not installed yet.
install_missing() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$p"
    fi
  done
}
