# PowerShell completion for cudnn-install: . (Join-Path $PSScriptRoot cudnn-install.ps1) in your profile.
Register-ArgumentCompleter -Native -CommandName cudnn-install, cudnn-install.exe -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @('status', 'verify', 'bench', 'doctor', 'uninstall', 'fetch', 'list',
               '--cuda-root', '--dry-run', '--yes', '--json', '--quiet', '--verbose', '--log', '--rollback',
               '--manifest', '--no-path', '--system', '--no-verify', '--no-bench', '--replace-in-use',
               '--require-no-holders', '--loader-config', '--mirror', '--help', '--version', '--force',
               '--cuda', '--platform', '--output', '--batch', '--batches', '--dtypes', '--layers', '--layouts',
               '--tiers', '--repeats', '--quick', '--list-shapes', '--library', '--per-batch', '--search',
               '--timing-data', '--settle-ms', '--cool-ms', '--finalists', '--finalist-margin')
    $words | Where-Object { $_ -like "$wordToComplete*" } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
    Get-ChildItem -Path "$wordToComplete*" -Include *.zip -ErrorAction SilentlyContinue |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_.Name, $_.Name, 'ProviderItem', $_.Name) }
}
