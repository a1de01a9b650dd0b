# install.ps1: installs lspkit on Windows from a release, without admin
# rights: the zip for this machine, its SHA-256 checked against the
# release's checksums.txt (a mismatch installs nothing), lspkit.exe put in
# %LOCALAPPDATA%\Programs\lspkit and that folder added to the user's PATH.
#
#   irm https://github.com/lspkit/lspkit/releases/latest/download/install.ps1 | iex
#
# $env:LSPKIT_VERSION: the release (default: the latest);
# $env:LSPKIT_INSTALL_DIR: where lspkit.exe goes; $env:LSPKIT_BASE_URL:
# where the release's files are (default: its GitHub release).
$ErrorActionPreference = 'Stop'

$arch = switch ($env:PROCESSOR_ARCHITECTURE) {
    'AMD64' { 'amd64' }
    'ARM64' { 'arm64' }
    default { throw "install.ps1: no lspkit release for $env:PROCESSOR_ARCHITECTURE; build it: go install github.com/lspkit/lspkit/cmd/lspkit@latest" }
}
if ($env:LSPKIT_BASE_URL) {
    $base = $env:LSPKIT_BASE_URL
} elseif ($env:LSPKIT_VERSION) {
    $base = "https://github.com/lspkit/lspkit/releases/download/v$($env:LSPKIT_VERSION.TrimStart('v'))"
} else {
    $base = 'https://github.com/lspkit/lspkit/releases/latest/download'
}
$dir = if ($env:LSPKIT_INSTALL_DIR) { $env:LSPKIT_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\lspkit' }

$tmp = Join-Path ([IO.Path]::GetTempPath()) ("lspkit-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    $sums = Join-Path $tmp 'checksums.txt'
    Invoke-WebRequest -UseBasicParsing -Uri "$base/checksums.txt" -OutFile $sums
    $line = Get-Content $sums | Where-Object { $_ -match "_windows_$arch\.zip$" } | Select-Object -First 1
    if (-not $line) { throw "install.ps1: the release at $base has no archive for windows/$arch" }
    $want, $archive = $line -split '\s+', 2
    $zip = Join-Path $tmp $archive
    Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive" -OutFile $zip
    $got = (Get-FileHash -Algorithm SHA256 $zip).Hash.ToLower()
    if ($got -ne $want.ToLower()) { throw "install.ps1: $archive's SHA-256 is $got, not $want as checksums.txt says: nothing installed" }
    Expand-Archive -Path $zip -DestinationPath (Join-Path $tmp 'x')
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
    Copy-Item -Force (Join-Path $tmp 'x\lspkit.exe') (Join-Path $dir 'lspkit.exe')
} finally {
    Remove-Item -Recurse -Force $tmp
}

$userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
if (-not ($userPath -split ';' | Where-Object { $_ -eq $dir })) {
    [Environment]::SetEnvironmentVariable('Path', "$dir;$userPath", 'User')
    Write-Host "added $dir to your PATH (new terminals see it)"
}
Write-Host "installed $(& (Join-Path $dir 'lspkit.exe') --version) as $(Join-Path $dir 'lspkit.exe')"
Write-Host 'next, in your project: lspkit init --host claude-code (or codex, gemini, opencode, cursor), then lspkit doctor'
