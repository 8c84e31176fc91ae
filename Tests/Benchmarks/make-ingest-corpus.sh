#!/usr/bin/env bash
# Base files of the `steno-bench ingest` corpus: seven containers (WAV, FLAC, MP3, M4A,
# Ogg Opus, WebM, CAF) x four lengths (1-4 s of noise at low rates), each carrying the
# marker tag "STENOBENCH-000000" that the benchmark rewrites in copies to make thousands
# of distinct files without running ffmpeg thousands of times.
# Usage: make-ingest-corpus.sh DIR     (needs ffmpeg; keeps files already there)
set -euo pipefail
dir=$1
mkdir -p "$dir"
for ext in wav flac mp3 m4a ogg webm caf; do
  for seconds in 1 2 3 4; do
    out="$dir/base-$seconds.$ext"
    [ -s "$out" ] && continue
    rate=8000; codec=()
    case $ext in
      m4a) codec=(-c:a aac -b:a 24k) ;;
      ogg|webm) codec=(-c:a libopus -b:a 12k); rate=48000 ;;
      caf) codec=(-c:a pcm_s16le) ;;
      mp3) codec=(-c:a libmp3lame -q:a 9) ;;
    esac
    ffmpeg -v error -y -f lavfi -i "anoisesrc=d=$seconds:c=pink:r=$rate:a=0.3:seed=$seconds" \
      -metadata comment=STENOBENCH-000000 "${codec[@]}" "$out"
  done
done
