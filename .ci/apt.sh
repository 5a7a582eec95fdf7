# apt.sh, sourced by .ci/deps and .ci/deps-ci: apt_install PACKAGE...
# installs Debian packages, as root or through sudo (only when not root),
# waiting for apt's locks instead of failing while another apt runs.
apt_install() {
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    local wait=(-o DPkg::Lock::Timeout=600)
    export DEBIAN_FRONTEND=noninteractive
    # `apt-get update` takes the lists' lock, which DPkg::Lock::Timeout does
    # not cover in every apt: retry it for up to 10 minutes.
    local tries=0
    until $sudo apt-get "${wait[@]}" update; do
        tries=$((tries + 1))
        [ "$tries" -lt 60 ] || { echo "apt-get update kept failing" >&2; return 1; }
        sleep 10
    done
    $sudo apt-get "${wait[@]}" install -y --no-install-recommends "$@"
}
