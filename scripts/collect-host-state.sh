#!/bin/sh
# Collect a GPU server's NIC RoCE/QoS state into a directory Fabric Twin reads back
# (compiler.parse.hosts.parse_host_snapshot; docs/hosts.md "Collecting a host's state").
#
#   sudo scripts/collect-host-state.sh OUT_DIR [NETDEV ...]
#
# Without NETDEVs every netdev with an RDMA device is collected. Read-only: it runs show commands and copies
# sysfs/configfs values; it changes nothing on the host. Tools used when present: mlnx_qos (MLNX_OFED/DOCA),
# dcb (iproute2 >= 5.11; apptrust needs >= 6.1), ethtool, ip. The NCCL environment is taken from
# $NCCL_CONF (default /etc/nccl.conf, the file NCCL reads at start).
#
# Layout written (one value per file unless noted):
#   OUT/hostname
#   OUT/nccl.env                                 copy of the NCCL config file
#   OUT/nics/<if>/driver                         mlx5_core | bnxt_en | ice | ...
#   OUT/nics/<if>/rdma_device                    mlx5_0, bnxt_re0, irdma0
#   OUT/nics/<if>/mtu, speed                     /sys/class/net/<if>/{mtu,speed} (speed in Mb/s)
#   OUT/nics/<if>/current_link_speed, current_link_width   the NIC's PCIe link (sysfs-bus-pci)
#   OUT/nics/<if>/addresses.json                 ip -j addr show dev <if>
#   OUT/nics/<if>/pause.txt                      ethtool -a <if>
#   OUT/nics/<if>/mlnx_qos.txt                   mlnx_qos -i <if> (ConnectX)
#   OUT/nics/<if>/dcb-{app,pfc,ets,apptrust}.json  dcb -j <object> show dev <if>
#   OUT/nics/<if>/ecn/roce_{rp,np}/...           copy of /sys/class/net/<if>/ecn (mlx5)
#   OUT/nics/<if>/gids.txt                       the RoCE GID table in use, one line per GID:
#                                                "<index> <gid> <netdev> <type>" from /sys/class/infiniband/<dev>/
#                                                ports/1/{gids,gid_attrs/ndevs,gid_attrs/types}/<index>
#   OUT/bnxt_re/<dev>/cc/*                       copy of /sys/kernel/config/bnxt_re/<dev>/ports/1/cc (Thor)
#   OUT/rdma_cm/<dev>/ports/1/default_roce_{mode,tos}  rdma_cm configfs (kernel configfs-rdma_cm ABI)
set -eu

out=${1:?usage: collect-host-state.sh OUT_DIR [NETDEV ...]}
shift
mkdir -p "$out/nics"
hostname > "$out/hostname"
conf=${NCCL_CONF:-/etc/nccl.conf}
[ -r "$conf" ] && cp "$conf" "$out/nccl.env"

if [ "$#" -eq 0 ]; then
    for path in /sys/class/net/*/device/infiniband; do
        [ -d "$path" ] || continue
        set -- "$@" "$(basename "$(dirname "$(dirname "$path")")")"
    done
fi

have() { command -v "$1" >/dev/null 2>&1; }

for netdev in "$@"; do
    sys=/sys/class/net/$netdev
    dir=$out/nics/$netdev
    mkdir -p "$dir"
    basename "$(readlink -f "$sys/device/driver")" > "$dir/driver" 2>/dev/null || true
    rdma=$(ls "$sys/device/infiniband" 2>/dev/null | head -n 1 || true)
    echo "$rdma" > "$dir/rdma_device"
    cat "$sys/mtu" > "$dir/mtu"
    cat "$sys/speed" > "$dir/speed" 2>/dev/null || true
    cat "$sys/device/current_link_speed" > "$dir/current_link_speed" 2>/dev/null || true
    cat "$sys/device/current_link_width" > "$dir/current_link_width" 2>/dev/null || true
    have ip && ip -j addr show dev "$netdev" > "$dir/addresses.json"
    have ethtool && ethtool -a "$netdev" > "$dir/pause.txt" 2>/dev/null || true
    have mlnx_qos && mlnx_qos -i "$netdev" > "$dir/mlnx_qos.txt" 2>/dev/null || rm -f "$dir/mlnx_qos.txt"
    if have dcb; then
        for object in app pfc ets apptrust; do
            dcb -j "$object" show dev "$netdev" > "$dir/dcb-$object.json" 2>/dev/null || rm -f "$dir/dcb-$object.json"
        done
    fi
    [ -d "$sys/ecn" ] && cp -r "$sys/ecn" "$dir/ecn" 2>/dev/null || true
    if [ -n "$rdma" ] && [ -d "/sys/class/infiniband/$rdma/ports/1/gids" ]; then
        port=/sys/class/infiniband/$rdma/ports/1
        for gid in "$port"/gids/*; do
            index=$(basename "$gid")
            value=$(cat "$gid" 2>/dev/null) || continue
            [ "$value" = "0000:0000:0000:0000:0000:0000:0000:0000" ] && continue
            # an unused entry's type cannot be read (EINVAL): skipped
            type=$(cat "$port/gid_attrs/types/$index" 2>/dev/null) || continue
            ndev=$(cat "$port/gid_attrs/ndevs/$index" 2>/dev/null) || ndev=-
            echo "$index $value $ndev $type"
        done > "$dir/gids.txt"
    fi
    if [ -n "$rdma" ]; then
        cc=/sys/kernel/config/bnxt_re/$rdma/ports/1/cc
        if [ -d "$cc" ]; then
            mkdir -p "$out/bnxt_re/$rdma/cc"
            for file in "$cc"/*; do cat "$file" > "$out/bnxt_re/$rdma/cc/$(basename "$file")" 2>/dev/null || true; done
        fi
        cm=/sys/kernel/config/rdma_cm/$rdma/ports/1
        if [ -d "$cm" ]; then
            mkdir -p "$out/rdma_cm/$rdma/ports/1"
            cat "$cm/default_roce_mode" > "$out/rdma_cm/$rdma/ports/1/default_roce_mode"
            cat "$cm/default_roce_tos" > "$out/rdma_cm/$rdma/ports/1/default_roce_tos"
        fi
    fi
done
echo "collected $# NIC(s) into $out"
