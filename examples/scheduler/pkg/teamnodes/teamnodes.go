// Package teamnodes is a Filter plugin of kube-scheduler: a pod that carries a team label runs only on the nodes whose
// annotation names that team. The default scheduler cannot do this: node affinity selects nodes by their labels, and
// labels are often owned by the cloud provider or the node pool's automation, while annotations are free for a
// platform team to set (kubectl annotate node worker-7 kubesched.example/teams=batch,ml).
//
// A pod without the label runs anywhere. A node without the annotation takes no labelled pod.
//
// Configured in the profile's pluginConfig (both args optional):
//
//	pluginConfig:
//	  - name: TeamNodes
//	    args:
//	      podLabel: kubesched.example/team         # the pod label that names the team
//	      nodeAnnotation: kubesched.example/teams  # the node annotation: a comma-separated list of teams
package teamnodes

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Name is the plugin's name in the scheduler's configuration.
const Name = "TeamNodes"

// Args are the plugin's arguments (pluginConfig[].args).
type Args struct {
	PodLabel       string `json:"podLabel,omitempty"`
	NodeAnnotation string `json:"nodeAnnotation,omitempty"`
}

// The defaults of Args.
const (
	DefaultPodLabel       = "kubesched.example/team"
	DefaultNodeAnnotation = "kubesched.example/teams"
)

// TeamNodes is the plugin.
type TeamNodes struct {
	args Args
}

var (
	_ fwk.FilterPlugin      = &TeamNodes{}
	_ fwk.EnqueueExtensions = &TeamNodes{}
	_ fwk.SignPlugin        = &TeamNodes{}
)

// New builds the plugin from its arguments; registered with app.WithPlugin(teamnodes.Name, teamnodes.New).
func New(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	args := Args{}
	if err := frameworkruntime.DecodeInto(obj, &args); err != nil {
		return nil, fmt.Errorf("%s: reading its args: %w", Name, err)
	}
	if args.PodLabel == "" {
		args.PodLabel = DefaultPodLabel
	}
	if args.NodeAnnotation == "" {
		args.NodeAnnotation = DefaultNodeAnnotation
	}
	return &TeamNodes{args: args}, nil
}

// Name returns the plugin's name.
func (pl *TeamNodes) Name() string { return Name }

// Filter lets a labelled pod onto a node only when the node's annotation lists the pod's team.
func (pl *TeamNodes) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) *fwk.Status {
	team, labelled := pod.Labels[pl.args.PodLabel]
	if !labelled {
		return nil
	}
	node := nodeInfo.Node()
	if node == nil {
		return fwk.NewStatus(fwk.Error, "node not found")
	}
	if Serves(node.Annotations[pl.args.NodeAnnotation], team) {
		return nil
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
		fmt.Sprintf("node(s) not annotated %s with team %q", pl.args.NodeAnnotation, team))
}

// Serves tells whether a node annotation's comma-separated list of teams names team.
func Serves(annotation, team string) bool {
	for _, listed := range strings.Split(annotation, ",") {
		if strings.TrimSpace(listed) == team && team != "" {
			return true
		}
	}
	return false
}

// EventsToRegister: a pod it rejected may fit once a node is added or its annotations change.
func (pl *TeamNodes) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAnnotation}},
	}, nil
}

// SignPod keeps the scheduler's batching of alike pods (KEP-5598): pods of one team fit the same nodes.
func (pl *TeamNodes) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	return []fwk.SignFragment{{Key: Name + "/" + pl.args.PodLabel, Value: pod.Labels[pl.args.PodLabel]}}, nil
}
