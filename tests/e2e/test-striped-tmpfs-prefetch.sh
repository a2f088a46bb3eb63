#!/bin/bash
# Images in a tmpfs: each GPU's extent is striped over several files (format 1.2), all 0600; the
# restore prefetches (POST_FORKING, CRIU >= 4.2) and takes chunks from it; a flipped byte that
# the prefetch saw first is still refused (nothing it read reaches the GPU unverified); with
# prefetch=no the restore reads everything itself; every restore byte-exact.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 17
small_dir 512m
cfg=$WORK/cudastore.conf
printf '# prefetch auto needs 4 CPUs\nchunk_mb = 1\nthreads = 4\nprefetch = yes\n' >"$cfg"
# the RESTORE waits until the prefetch has read everything (prefetch.c): deterministic counts
export CUDASTORE_TEST_PREFETCH_COMPLETE=1
export CUDASTORE_CONFIG=$cfg
IMG=$WORK/small/img

start_workload w --size 24m --seed 11
criu_dump "$IMG" "$WPID"
check "criu dump into the tmpfs succeeds" [ $? = 0 ]
n=$(ls "$IMG" | grep -c "^cudastore-$WPID-gpu0.*\.ext$")
check "the extent is striped over 4 files ($n)" [ "$n" = 4 ]
check "every stripe is 0600" bash -c "! stat -c %a '$IMG'/*.ext | grep -vqx 600"
check "the manifest lists the stripes" bash -c "'$top_builddir/tests/e2e/cs-manifest-tool' '$(manifest_of "$IMG" "$WPID")' show | grep -q 'cudastore-$WPID-gpu0.s3.ext'"
wait_gone "$WPID"
cp -a "$IMG" "$WORK/small/good"
cp -a "$IMG" "$WORK/small/nopf"
before=$(images_sum "$IMG")
criu_restore "$IMG"
check "criu restore succeeds" [ $? = 0 ]
check "criu 4.2 called POST_FORKING: the helper prefetched" \
	log_has "$IMG/restore.log" "prefetch: [1-9][0-9]* bytes read and verified"
check "the GPU restore took chunks from the prefetch" log_has "$IMG/restore.log" "bytes from the prefetch"
check "restore did not modify the images" [ "$before" = "$(images_sum "$IMG")" ]
check_verdict w "$WPID" "workload verified every byte after the prefetched restore"
wait_gone "$WPID"

# a flipped byte in stripe 2: the prefetch finds it bad, the restore reads it again and refuses
E=$WORK/small/good/cudastore-$WPID-gpu0.s2.ext
cp -a "$WORK/small/good" "$WORK/small/bad"
E=$WORK/small/bad/cudastore-$WPID-gpu0.s2.ext
off=$(( $(stat -c %s "$E") / 2 + 77 ))
b=$(dd if="$E" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(( (b ^ 0x5a) & 255 )))" | dd of="$E" bs=1 seek=$off conv=notrunc 2>/dev/null
criu_restore "$WORK/small/bad"
check "a damaged stripe is refused with a checksum error" \
	log_has "$WORK/small/bad/restore.log" "checksum mismatch in cudastore-$WPID-gpu0.s2.ext"
check "the prefetch read and verified the other chunks, not the damaged one" \
	log_has "$WORK/small/bad/restore.log" "prefetch: [1-9][0-9]* bytes read and verified.*read again"
sleep 0.3
check "the process does not run with wrong data" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
wait_gone "$WPID"

CRIU_ENV="CUDASTORE_PREFETCH=no" criu_restore "$WORK/small/nopf"
check "restore with prefetch=no succeeds" log_has "$WORK/small/nopf/restore.log" "pid $WPID: GPU restore done"
check "prefetch=no: no prefetch" bash -c "! grep -q 'prefetch' '$WORK/small/nopf/restore.log'"
check_verdict w "$WPID" "workload verified every byte after the restore without prefetch"
wait_gone "$WPID"

criu_restore "$WORK/small/good"
check "the untouched copy restores (prefetch on)" log_has "$WORK/small/good/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "workload verified every byte"
done_testing
