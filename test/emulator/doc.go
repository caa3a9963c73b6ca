// Package emulator holds the Go end-to-end tests of the Studio plugin: the
// real studio-bridge binary as host, and Studio windows run by the Node
// emulator (bin/studio.mjs), which executes the plugin's unmodified Luau
// source under luau-web with a mocked Roblox API. The emulator itself is the
// Node package in this folder; see README.md. The tests of `test --cloud`
// here (test_cloud_standin_test.go) give the Open Cloud stand-in
// (cloud/cloudtest) an Executor that runs each task's script in the same
// Luau runtime (bin/cloud-task.mjs) against a generated Rojo project.
package emulator
