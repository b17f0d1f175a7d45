# bash completion for cudnn-install
_cudnn_install() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case "$prev" in
    --cuda-root|--output) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --platform) COMPREPLY=($(compgen -W "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64" -- "$cur")); return ;;
    --log|--manifest|--library) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --loader-config) COMPREPLY=($(compgen -W "auto system print none" -- "$cur")); return ;;
    --dtypes) COMPREPLY=($(compgen -W "fp16 bf16 tf32 fp32 fp16,bf16" -- "$cur")); return ;;
    --layouts) COMPREPLY=($(compgen -W "nhwc nchw nhwc,nchw" -- "$cur")); return ;;
    --tiers) COMPREPLY=($(compgen -W "legacy graph legacy,graph" -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "--cuda-root --dry-run --yes --json --quiet --verbose --log --rollback
      --manifest --no-path --system --no-verify --no-bench --replace-in-use --require-no-holders --loader-config
      --mirror --help --version --force --cuda --platform --output
      --batch --batches --dtypes --layers --layouts --tiers --repeats --quick --list-shapes --library --per-batch
      --search --timing-data --settle-ms --cool-ms --finalists --finalist-margin" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "status verify bench doctor uninstall fetch list" -- "$cur") $(compgen -f -X '!*.@(zip|tar.xz|tgz)' -- "$cur"))
}
complete -o filenames -F _cudnn_install cudnn-install
