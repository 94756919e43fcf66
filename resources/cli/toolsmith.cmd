@echo off
rem The installed app's `toolsmith` command (docs/cli.md): Toolsmith.exe started with --cli and
rem the arguments as given; the command's exit code is this script's. It is installed as
rem <app>\resources\bin\toolsmith.cmd: put that folder on PATH.
setlocal
set "APP=%~dp0..\..\Toolsmith.exe"
if not exist "%APP%" goto missing
rem A batch file waits for the app (a windowed program) to end, and passes on its exit code.
rem cmd.exe reads %* again (& | < > ^ outside quotes act): scripts passing text they did not
rem write start Toolsmith.exe --cli themselves (docs/cli.md).
"%APP%" --cli %*
exit /b %ERRORLEVEL%

:missing
echo toolsmith: the app's binary is not at "%APP%" 1>&2
exit /b 1
