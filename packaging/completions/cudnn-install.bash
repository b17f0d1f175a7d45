# bash completion for cudnn-install
_cudnn_install() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case "$prev" in
    --cuda-root) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --log|--manifest|--library) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --loader-config) COMPREPLY=($(compgen -W "auto system print none" -- "$cur")); return ;;
    --dtypes) COMPREPLY=($(compgen -W "fp16 bf16 tf32 fp32 fp16,bf16" -- "$cur")); return ;;
    --layouts) COMPREPLY=($(compgen -W "nhwc nchw nhwc,nchw" -- "$cur")); return ;;
    --tiers) COMPREPLY=($(compgen -W "legacy graph legacy,graph" -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "--cuda-root --dry-run --yes --json --quiet --verbose --log --rollback --force-name
      --manifest --no-path --system --no-verify --no-bench --replace-in-use --require-no-holders --loader-config
      --help --version --batch --dtypes --layouts --tiers --repeats --quick --list-shapes --library" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "status verify bench doctor uninstall" -- "$cur") $(compgen -f -X '!*.@(zip|tar.xz|tgz)' -- "$cur"))
}
complete -o filenames -F _cudnn_install cudnn-install
