package commands

import (
	"context"
	"fmt"
	"time"
)

// runTestCloud is test --cloud: the same runner as one Open Cloud Luau
// Execution task (exec --cloud's path), against a place version that holds
// TestEZ and the specs (--root). Spec files from disk are refused before
// this (checkTestArgs): whether a cloud server may create ModuleScripts
// with Source is not known without the real API (docs/testing.md).
func runTestCloud(ctx context.Context, env *Env, args *TestArgs, script string) (*Result, error) {
	// The specs' output goes to stderr: stdout keeps the report.
	cloudEnv := *env
	cloudEnv.Output = func(l Line) {
		if env.Stderr != nil {
			fmt.Fprint(env.Stderr, RenderLine(l))
		}
	}
	started := time.Now()
	place := args.CloudPlace
	place.cmd = "test" // its errors name test --cloud
	res, err := runCloud(ctx, &cloudEnv, &ExecArgs{Script: script, Cloud: true, CloudPlace: place})
	if err != nil {
		return nil, err
	}
	data := res.Data.(CloudExecData)
	if !data.Success {
		return nil, fmt.Errorf("test --cloud: the runner failed in Open Cloud (task %s): %s", data.TaskPath, data.Error)
	}
	return testResult(env, args, data.ReturnValues, time.Since(started))
}
