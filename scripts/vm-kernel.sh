#!/usr/bin/env bash
# Builds a small bootable x86-64 kernel from a tree, for `eevdf-check vm
# --kernel-tree` and the probes of scripts/vm-*.sh (docs/bridges.md, "Your own
# kernel"):
#
#   scripts/vm-kernel.sh --tree TREE [--patch FILE]... [--fix ID]... [--cache DIR] [--jobs N]
#
# TREE: a kernel source directory or a linux-source-*.tar.xz (unpacked once
# into the cache). The tree is never written: it is mirrored into
# CACHE/kbuild/NAME-KEY/src (hard links where the file system allows; a
# patched file is a new file), the patches (`patch -p1`) and this project's
# fixes (`scripts/kernel-fix.py ID`) are applied there, and the kernel is
# built out of that copy with O=CACHE/kbuild/NAME-KEY/obj: `make tinyconfig`,
# bridge/vm/kernel.config merged in, `make olddefconfig`, `make bzImage`
# (ccache when installed). KEY is a hash of the tree's path; neither the
# patches nor kernel.config change it (a changed kernel.config makes the
# configuration anew), so "before" and "after" share one object directory and
# a switch rebuilds only what the patches touch.
#
# Prints the path of the bzImage, a copy kept per patch set in
# CACHE/kernels/NAME-KEY-PATCHES/ with a manifest (tree, version, patches,
# fixes), as its last line on stdout; progress and errors go to stderr.
# Exit codes: 0 built; 2 bad input (not a kernel tree, a patch or fix that
# does not apply, an option of kernel.config that does not stick); 3 the
# kernel build failed (the end of its log on stderr); 77 a tool is missing.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tree="" cache="${EEVDF_VM_CACHE:-$here/build/vm}" jobs="$(nproc)"
patches=() fixes=()
fragment="$here/bridge/vm/kernel.config"

die() { echo "vm-kernel: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --tree) tree="$2"; shift 2 ;;
    --patch) patches+=("$(realpath -e "$2" 2>/dev/null)") || true; [ -f "$2" ] || die "--patch $2: no such file"; shift 2 ;;
    --fix) fixes+=("$2"); shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) die "unknown argument '$1' (usage: scripts/vm-kernel.sh --tree TREE [--patch FILE]... [--fix ID]... [--cache DIR] [--jobs N])" ;;
  esac
done
[ -n "$tree" ] || die "--tree TREE is required (a kernel source directory or a linux-source-*.tar.xz)"
for t in make gcc flex bison bc rsync patch python3; do
  command -v "$t" >/dev/null || { echo "vm-kernel: SKIP: $t is missing (scripts/setup.sh --with-vm installs the kernel build's tools)" >&2; exit 77; }
done
[ -f /usr/include/libelf.h ] || [ -f /usr/include/gelf.h ] ||
  { echo "vm-kernel: SKIP: libelf-dev is missing (scripts/setup.sh --with-vm)" >&2; exit 77; }
mkdir -p "$cache" || die "$cache: cannot create"
cache="$(realpath "$cache")"

# the source directory: TREE itself, or the tarball unpacked once
if [ -d "$tree" ]; then
  src_dir="$(realpath "$tree")"
  name="$(basename "$src_dir")"
elif [ -f "$tree" ]; then
  case "$tree" in *.tar.xz|*.tar.gz|*.tar.bz2|*.tar) ;; *) die "$tree: neither a directory nor a tarball (.tar.xz, .tar.gz)" ;; esac
  tarball="$(realpath "$tree")"
  name="$(basename "$tarball")"; name="${name%%.tar*}"
  stamp="$(stat -c '%s-%Y' "$tarball")"
  unpacked="$cache/trees/$name-$(printf '%s %s' "$tarball" "$stamp" | sha256sum | cut -c1-10)"
  if [ ! -f "$unpacked/.unpacked" ]; then
    echo "vm-kernel: unpacking $tarball into $unpacked" >&2
    rm -rf "$unpacked" && mkdir -p "$unpacked" || die "$unpacked: cannot create"
    tar -xf "$tarball" -C "$unpacked" || die "$tarball: cannot unpack"
    touch "$unpacked/.unpacked"
  fi
  top=("$unpacked"/*/)
  [ ${#top[@]} -eq 1 ] || die "$tarball: expected one top directory, found ${#top[@]}"
  src_dir="$(realpath "${top[0]}")"
else
  die "$tree: no such directory or file"
fi
for f in Makefile kernel/sched/fair.c arch/x86/Kconfig scripts/kconfig/merge_config.sh; do
  [ -f "$src_dir/$f" ] || die "$src_dir: not a full kernel source tree ($f is missing; the VM build needs the whole tree, not the files the kernel backend reads)"
done
[ ! -f "$src_dir/.config" ] || die "$src_dir: the tree is configured in place (.config); an out-of-tree build needs 'make mrproper' there first"
version="$(make -s -C "$src_dir" kernelversion 2>/dev/null)" || die "$src_dir: 'make kernelversion' fails"

key="$(echo "$src_dir" | sha256sum | cut -c1-10)"
work="$cache/kbuild/$name-$key"
mkdir -p "$work/obj" || die "$work: cannot create"

# the mirror: unchanged files hard-linked to the tree, the files an earlier
# run patched copied afresh (a new mtime: make rebuilds what uses them)
echo "vm-kernel: Linux $version from $src_dir, mirrored into $work/src" >&2
rsync -a --delete --exclude=/.git --link-dest="$src_dir" "$src_dir/" "$work/src/" ||
  die "rsync of $src_dir into $work/src failed"
if [ -f "$work/patched-files" ]; then
  while IFS= read -r f; do
    [ -f "$src_dir/$f" ] && cp --remove-destination "$src_dir/$f" "$work/src/$f"
  done < "$work/patched-files"
  rm -f "$work/patched-files"
fi
# the patches and fixes, in order; the files they change are recorded first
changed=()
for p in "${patches[@]}"; do
  mapfile -t files < <(patch -p1 -d "$work/src" --dry-run --batch --forward -s --quiet < "$p" >/dev/null 2>&1 &&
                        grep -E '^\+\+\+ ' "$p" | sed -E 's#^\+\+\+ [^/]*/##; s#\t.*##')
  [ ${#files[@]} -gt 0 ] || die "$p: does not apply to Linux $version ($src_dir) with patch -p1 (try: patch -p1 --dry-run -d $src_dir < $p)"
  changed+=("${files[@]}")
  printf '%s\n' "${changed[@]}" > "$work/patched-files"
  for f in "${files[@]}"; do  # a patched file is a new file, never the tree's (a hard link)
    [ -f "$work/src/$f" ] && cp --remove-destination "$src_dir/$f" "$work/src/$f"
  done
  patch -p1 -d "$work/src" --batch --forward -s < "$p" >&2 || die "$p: patch -p1 failed on $work/src"
  echo "vm-kernel: applied $p (${files[*]})" >&2
done
for fx in "${fixes[@]}"; do
  out="$(python3 "$here/scripts/kernel-fix.py" "$fx" --tree "$work/src" --files 2>&1)" || die "--fix $fx: $out"
  mapfile -t files <<< "$out"
  changed+=("${files[@]}")
  printf '%s\n' "${changed[@]}" > "$work/patched-files"
  python3 "$here/scripts/kernel-fix.py" "$fx" --tree "$work/src" --apply >&2 || die "--fix $fx: the edit failed on $work/src"
  echo "vm-kernel: applied fix $fx (${files[*]})" >&2
done

# the configuration, made anew when kernel.config changes
make_args=(-C "$work/src" O="$work/obj" -j"$jobs")
command -v ccache >/dev/null && make_args+=(CC="ccache gcc")
frag_hash="$(sha256sum < "$fragment" | cut -c1-16)"
if [ ! -f "$work/obj/.config" ] || [ "$(cat "$work/obj/.eevdf-config" 2>/dev/null)" != "$frag_hash" ]; then
  echo "vm-kernel: tinyconfig + bridge/vm/kernel.config" >&2
  grep -E '^CONFIG_' "$fragment" > "$work/obj/eevdf.config"
  preferred=$(sed -n '/^# preferred$/,$p' "$fragment" | grep -E '^CONFIG_')
  { make "${make_args[@]}" tinyconfig &&
    (cd "$work/obj" && "$work/src/scripts/kconfig/merge_config.sh" -m -O "$work/obj" "$work/obj/.config" "$work/obj/eevdf.config") &&
    make "${make_args[@]}" olddefconfig; } > "$work/obj/config.log" 2>&1 ||
    { tail -20 "$work/obj/config.log" >&2; die "the configuration failed ($work/obj/config.log)"; }
  missing=()
  while IFS= read -r line; do
    opt="${line%%=*}"
    grep -qx "$line" "$work/obj/.config" && continue
    if grep -qx "$line" <<<"$preferred"; then
      echo "vm-kernel: note: $opt is not offered by Linux $version here; its default stays" >&2
      continue
    fi
    if grep -rqsE "^(menu)?config ${opt#CONFIG_}\$" --include='Kconfig*' "$work/src/arch/x86" "$work/src/init" \
         "$work/src/kernel" "$work/src/lib" "$work/src/drivers/tty" "$work/src/drivers/acpi" "$work/src/drivers/pci" \
         "$work/src/fs" "$work/src/mm" "$work/src/drivers/base"; then
      missing+=("$opt")
    else
      echo "vm-kernel: note: $opt does not exist in Linux $version" >&2
    fi
  done < "$work/obj/eevdf.config"
  [ ${#missing[@]} -eq 0 ] || die "Linux $version: ${missing[*]} did not stick after olddefconfig (a dependency is off; $work/obj/.config)"
  echo "$frag_hash" > "$work/obj/.eevdf-config"
fi

echo "vm-kernel: make bzImage (log: $work/obj/build.log)" >&2
start=$(date +%s)
make "${make_args[@]}" bzImage > "$work/obj/build.log" 2>&1 ||
  { tail -30 "$work/obj/build.log" >&2; echo "vm-kernel: the kernel build failed ($work/obj/build.log)" >&2; exit 3; }
echo "vm-kernel: built in $(( $(date +%s) - start )) s" >&2

# the image, kept per patch set
pkey="$( { for p in "${patches[@]}"; do sha256sum < "$p"; done; printf '%s\n' "${fixes[@]}"; } | sha256sum | cut -c1-10)"
[ ${#patches[@]} -eq 0 ] && [ ${#fixes[@]} -eq 0 ] && pkey=plain
dest="$cache/kernels/$name-$key-$pkey"
mkdir -p "$dest" || die "$dest: cannot create"
cp "$work/obj/arch/x86/boot/bzImage" "$dest/bzImage"
{
  echo "tree $src_dir"
  echo "version $version"
  for p in "${patches[@]}"; do echo "patch $p $(sha256sum < "$p" | cut -c1-16)"; done
  for fx in "${fixes[@]}"; do echo "fix $fx"; done
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$dest/manifest"
echo "$dest/bzImage"
