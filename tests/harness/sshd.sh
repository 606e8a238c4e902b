#!/usr/bin/env bash
# An SSH server for tests: Debian's openssh-server (/usr/sbin/sshd) on 127.0.0.1 and a free
# high port, letting in the user running this script with a test key, for Git over SSH.
#
# Usage: sshd.sh DIR
# Makes in DIR (created if needed): host_ed25519 (the server's host key), user_ed25519 and
# user_ed25519.pub (the key the client logs in with; authorized_keys lists it), known_hosts
# (one line, "[127.0.0.1]:PORT ssh-ed25519 ..."), sshd_config and sshd.log; starts sshd, waits
# until it accepts connections, and prints "PORT PID" on stdout. Stop it with kill PID.
#
# Works as root (CI) and as a normal user. As root sshd needs its privilege-separation
# directory /run/sshd, created here if missing, and root logs in by key only. As a normal user
# sshd cannot switch users, so it serves only its own user, which is the one let in.
# StrictModes is off because the test directories live under /tmp.
set -euo pipefail

dir=${1:?usage: sshd.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
SSHD=${SSHD:-/usr/sbin/sshd}
[[ -x $SSHD ]] || { echo "sshd.sh: $SSHD not found (apt-get install openssh-server)" >&2; exit 1; }
user=$(id -un)

rm -f "$dir"/host_ed25519* "$dir"/user_ed25519*
ssh-keygen -q -t ed25519 -N '' -C cub-test-host -f "$dir/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C cub-test-user -f "$dir/user_ed25519"
cp "$dir/user_ed25519.pub" "$dir/authorized_keys"
chmod 600 "$dir/authorized_keys"

if [[ $(id -u) -eq 0 && ! -d /run/sshd ]]; then
  mkdir -p /run/sshd
  chmod 755 /run/sshd
fi

for attempt in 1 2 3; do
  port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  cat >"$dir/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $user
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
LogLevel VERBOSE
CONF
  echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" >"$dir/known_hosts"
  "$SSHD" -D -e -f "$dir/sshd_config" >>"$dir/sshd.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 100); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port $pid"
      exit 0
    fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
echo "sshd.sh: sshd did not start; its log:" >&2
cat "$dir/sshd.log" >&2
exit 1
